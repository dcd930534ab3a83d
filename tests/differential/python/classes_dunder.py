class Vec:
    def __init__(self, x, y): self.x, self.y = x, y
    def __repr__(self): return f"Vec({self.x}, {self.y})"
    def __str__(self): return f"<{self.x}, {self.y}>"
    def __add__(self, o): return Vec(self.x + o.x, self.y + o.y)
    def __mul__(self, k): return Vec(self.x * k, self.y * k)
    __rmul__ = __mul__
    def __eq__(self, o): return (self.x, self.y) == (o.x, o.y)
    def __hash__(self): return hash((self.x, self.y))
    def __len__(self): return 2
    def __getitem__(self, i): return (self.x, self.y)[i]
    def __bool__(self): return bool(self.x or self.y)
    def __iter__(self): yield self.x; yield self.y
v = Vec(1, 2)
print(v, repr(v), v + Vec(3, 4), 3 * v, v * 2, v == Vec(1, 2), len(v), v[1], list(v), bool(Vec(0, 0)))
print({v, Vec(1, 2)}, [v], str([v]), f"{v}", f"{v!r}")
