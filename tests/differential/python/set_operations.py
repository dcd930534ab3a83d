a = {1, 2, 3, 4}
b = {3, 4, 5}
print(sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b))
print(a <= {1, 2, 3, 4, 5}, a.isdisjoint({9}), {1, 2} < a, 3 in a)
s = set(); s.add(1); s.update([2, 3]); s.discard(9); s.remove(1); print(sorted(s))
f = frozenset([1, 2]); print(f, f | {3} == {1, 2, 3}, len({f, frozenset([2, 1])}))
print(set(), {1}, sorted(set("hello")), set([1, 1, 2]) == {1, 2})
try:
    s.remove(42)
except KeyError as e:
    print("KeyError", e)
