import json
for bad in ['{"a": 1,}', "[1, 2", "{'a': 1}", "", "tru", '{"a" 1}', '"unterminated', "[1] x"]:
    try:
        json.loads(bad)
    except json.JSONDecodeError as e:
        print(repr(bad), "->", e.msg, e.pos, e.lineno, e.colno, "|", e)
try:
    json.dumps({"s": {1, 2}})
except TypeError as e:
    print("TypeError:", e)
try:
    json.dumps(float("nan"), allow_nan=False)
except ValueError as e:
    print("ValueError:", e)
