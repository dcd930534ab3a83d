import json
data = {"name": "Ada", "age": 36, "langs": ["en", "fr"], "ok": True, "none": None, "pi": 3.14159, "nested": {"a": [1, {"b": 2}]}}
print(json.dumps(data))
print(json.dumps(data, indent=2, sort_keys=True))
print(json.dumps(data, separators=(",", ":")))
print(json.dumps("é☃\n\"q\""), json.dumps("é☃", ensure_ascii=False))
print(json.dumps([1e100, 1.0, 0.1, -0.0, 10**20, float("inf")]))
print(json.dumps({1: "int key", True: "bool", None: "none"}))
