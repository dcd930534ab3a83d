import json
s = '{"a": [1, 2.5, "x", null, true, false], "b": {"c": "\\u00e9\\ud83d\\ude00"}, "d": 1e3, "e": -0}'
v = json.loads(s)
print(v, type(v["d"]).__name__, v["b"]["c"])
print(json.loads("123"), json.loads('"str"'), json.loads("[]"), json.loads(" {} "))
print(json.loads('{"a": 1, "a": 2}'), json.loads("NaN"), json.loads("-Infinity"))
from decimal import Decimal
print(json.loads("1.10", parse_float=Decimal), json.loads('{"x": 1}', object_hook=lambda d: sorted(d)))
print(json.loads('[1, 2]', object_pairs_hook=None), json.loads('{"b":1,"a":2}', object_pairs_hook=list))
