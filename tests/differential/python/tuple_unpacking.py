t = (1, 2, 3)
a, b, c = t
first, *rest = [1, 2, 3, 4]
*init, last = "abcd"
x, (y, z) = 1, (2, 3)
print(a, b, c, first, rest, init, last, x, y, z)
print((1,), (), tuple("ab"), t + (4,), t * 2, t.index(2), t.count(1), (1, 2) < (1, 2, 0))
a, b = b, a
print(a, b)
for i, (k, v) in enumerate({"p": 1, "q": 2}.items(), start=1):
    print(i, k, v)
try:
    p, q = [1, 2, 3]
except ValueError as e:
    print(e)
