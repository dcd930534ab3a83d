class Temp:
    __slots__ = ("_c",)
    def __init__(self, c): self._c = c
    @property
    def f(self): return self._c * 9 / 5 + 32
    @f.setter
    def f(self, v): self._c = (v - 32) * 5 / 9
    @staticmethod
    def unit(): return "C"
    @classmethod
    def freezing(cls): return cls(0)
t = Temp(100)
print(t.f, Temp.unit(), Temp.freezing().f)
t.f = 212; print(t._c)
try:
    t.other = 1
except AttributeError as e:
    print("AttributeError:", e)
class Base:
    def hello(self): return "base"
class Child(Base):
    def hello(self): return "child+" + super().hello()
print(Child().hello(), Child.__mro__, isinstance(Child(), Base), type(Child()).__name__)
