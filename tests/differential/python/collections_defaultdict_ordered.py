from collections import defaultdict, OrderedDict, ChainMap
dd = defaultdict(list)
for k, v in [("a", 1), ("b", 2), ("a", 3)]:
    dd[k].append(v)
print(dd, dict(dd), dd["missing"])
counts = defaultdict(int)
for ch in "hello": counts[ch] += 1
print(sorted(counts.items()))
od = OrderedDict.fromkeys("abcde")
od.move_to_end("b"); od.move_to_end("e", last=False)
print(list(od), od.popitem(last=False), od)
cm = ChainMap({"x": 1}, {"x": 2, "y": 3})
print(cm["x"], cm["y"], len(cm), sorted(cm))
