d = {"b": 2, "a": 1}
d["c"] = 3
print(d, len(d), "a" in d, d.get("z"), d.get("z", 0), d.setdefault("d", 4), d)
print(list(d.keys()), list(d.values()), list(d.items()))
print(d.pop("b"), d.pop("zz", None), d.popitem(), d)
d.update({"x": 10}, y=20); print(d)
print({**d, "a": 100}, d | {"q": 1}, dict(zip("abc", range(3))), dict.fromkeys("xy", 0))
for k, v in sorted(d.items()):
    print(k, v)
del d["a"]; print(d)
