try:
    raise ExceptionGroup("many", [ValueError("v1"), TypeError("t1"), ValueError("v2")])
except* ValueError as eg:
    print("values:", [str(e) for e in eg.exceptions])
except* TypeError as eg:
    print("types:", [str(e) for e in eg.exceptions])
eg = ExceptionGroup("g", [KeyError("k"), OSError("o")])
print(eg, repr(eg), len(eg.exceptions))
m, rest = eg.split(KeyError)
print(m, rest)
e = ValueError("base")
e.add_note("extra context")
print(e.__notes__)
