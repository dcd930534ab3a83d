import copy, operator
a = [[1, 2], {"k": [3]}]
s = copy.copy(a); d = copy.deepcopy(a)
a[0].append(9); a[1]["k"].append(8)
print(s, d)
print(operator.add(1, 2), operator.itemgetter(1, 2)("abcd"), operator.attrgetter("real")(3 + 4j), operator.methodcaller("upper")("x"))
print(sorted({"b": 2, "a": 1}.items(), key=operator.itemgetter(1)))
print(isinstance(1, (int, str)), callable(len), getattr(3, "imag"), hasattr("", "join"), type(None).__name__, id(a) == id(a))
print(vars(type("T", (), {"a": 1}))["a"], divmod(7, 2), round(7 / 3, 3), repr(...), NotImplemented)
