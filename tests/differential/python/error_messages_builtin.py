tests = [
    lambda: 1 / 0,
    lambda: 1 % 0,
    lambda: [][1],
    lambda: {}["k"],
    lambda: int("x1"),
    lambda: "a" + 1,
    lambda: 1 + "a",
    lambda: None.foo,
    lambda: undefined_name,
    lambda: len(5),
    lambda: [1, 2].index(3),
    lambda: (1,)[5],
    lambda: "abc"[10],
    lambda: float("bad"),
    lambda: {}.pop("x"),
    lambda: int(None),
    lambda: iter(5),
    lambda: next(iter([])),
    lambda: ord("ab"),
    lambda: chr(-1),
    lambda: "x" * "y",
    lambda: object().missing(),
    lambda: [].pop(),
    lambda: divmod(1, 0.0),
    lambda: {[]: 1},
    lambda: sorted([1, "a"]),
    lambda: "{0} {1}".format(1),
    lambda: "%d" % "s",
    lambda: bytes("é"),
]
for t in tests:
    try:
        t()
    except Exception as e:
        print(type(e).__name__ + ":", e)
