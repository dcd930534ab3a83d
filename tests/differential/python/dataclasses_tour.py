from dataclasses import dataclass, field, asdict, astuple, replace
@dataclass(order=True)
class Item:
    priority: int
    name: str = field(compare=False)
    tags: list = field(default_factory=list, compare=False, repr=False)
a = Item(2, "b"); b = Item(1, "a", ["x"])
print(a, b, sorted([a, b]), a == Item(2, "zzz"), asdict(b), astuple(a))
print(replace(a, priority=5))
@dataclass(frozen=True)
class P:
    x: int
    y: int = 0
p = P(1)
try:
    p.x = 5
except Exception as e:
    print(type(e).__name__, e)
print(p, hash(p) == hash(P(1, 0)))
