def countdown(n):
    while n > 0:
        yield n
        n -= 1
print(list(countdown(5)), sum(countdown(100)))
def echo():
    received = None
    while True:
        received = yield received
g = echo(); next(g); print(g.send("hi"), g.send(42))
def chain(*its):
    for i in its:
        yield from i
print(list(chain("ab", range(3))))
it = iter([1, 2]); print(next(it), next(it), next(it, "done"))
class Squares:
    def __init__(self, n): self.n = n
    def __iter__(self): return (i * i for i in range(self.n))
print(list(Squares(5)), list(map(str.upper, "abc")), list(filter(None, [0, 1, "", "a"])))
print(list(enumerate("xyz")), list(zip(range(3), "ab")), any([0, 0, 1]), all([]))
