from collections import Counter
c = Counter("abracadabra")
print(c.most_common(3), c["a"], c["z"], sum(c.values()))
c.update("aaz"); print(c.most_common(2))
d = Counter(a=3, b=1) - Counter(a=1, b=2)
print(d, Counter(a=1) + Counter(a=2, b=1), Counter("ab") & Counter("bc"), Counter("ab") | Counter("bb"))
print(sorted(c.elements())[:6], Counter([1, 2, 2, 3, 3, 3]).most_common())
