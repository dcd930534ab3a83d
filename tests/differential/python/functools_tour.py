import functools, operator
print(functools.reduce(operator.mul, range(1, 6)), functools.reduce(lambda a, b: a + b, ["x", "y", "z"], ""))
@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(80), fib.cache_info())
add5 = functools.partial(operator.add, 5)
print(add5(10), add5.func is operator.add, add5.args)
@functools.total_ordering
class V:
    def __init__(self, v): self.v = v
    def __eq__(self, o): return self.v == o.v
    def __lt__(self, o): return self.v < o.v
print(V(1) <= V(2), V(3) >= V(4), max([V(2), V(9), V(4)], key=lambda x: x).v)
def deco(f):
    @functools.wraps(f)
    def inner(*a): return f(*a)
    return inner
@deco
def named(): "doc"
print(named.__name__, named.__doc__)
