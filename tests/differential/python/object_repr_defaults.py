class Plain: pass
p = Plain()
print(type(p).__name__, type(p).__qualname__, Plain.__module__, str(p).startswith("<__main__.Plain object at 0x"))
print(repr(len), repr(int), repr(print).split(" at ")[0], repr(Plain)[:8], repr(lambda: 0).split(" at ")[0])
print(repr(range(3)), repr(slice(1, 2)), repr(set()), repr(frozenset()), repr({}), repr(()), repr(type))
