import json
from datetime import datetime, timezone, date
from decimal import Decimal
class Enc(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, (datetime, date)):
            return o.isoformat()
        if isinstance(o, Decimal):
            return str(o)
        if isinstance(o, set):
            return sorted(o)
        return super().default(o)
obj = {"when": datetime(2024, 2, 29, 12, 30, tzinfo=timezone.utc), "day": date(2000, 1, 1), "price": Decimal("9.99"), "tags": {"b"}}
print(json.dumps(obj, cls=Enc, sort_keys=True))
print(json.dumps(obj, default=str, sort_keys=True))
try:
    json.dumps(object())
except TypeError as e:
    print(str(e).split(" at ")[0])
