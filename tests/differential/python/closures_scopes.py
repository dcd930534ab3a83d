def counter():
    n = 0
    def inc():
        nonlocal n
        n += 1
        return n
    return inc
c = counter(); c(); c(); print(c())
fs = [lambda: i for i in range(3)]
print([f() for f in fs])
fs = [lambda i=i: i for i in range(3)]
print([f() for f in fs])
g = 1
def read_global(): return g
def set_global():
    global g
    g = 2
set_global(); print(read_global())
def outer():
    x = "outer"
    def inner(): return x
    x = "changed"
    return inner()
print(outer())
