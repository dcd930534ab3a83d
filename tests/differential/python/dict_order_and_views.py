d = {}
for word in "the quick brown fox jumps over the lazy dog the end".split():
    d[word] = d.get(word, 0) + 1
print(d)
print(sorted(d, key=d.get, reverse=True)[:2], max(d, key=d.get))
ks = d.keys()
d["new"] = 1
print(len(ks), "new" in ks, ks & {"fox", "cat"}, list(d)[-1])
print({v: k for k, v in {"a": 1, "b": 2}.items()})
print(dict(sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))))
