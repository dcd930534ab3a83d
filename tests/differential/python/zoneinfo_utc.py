from datetime import datetime, timezone, timedelta
from zoneinfo import ZoneInfo
u = datetime(2024, 6, 1, 12, 0, tzinfo=ZoneInfo("UTC"))
print(u, u.tzname(), u.utcoffset(), u == datetime(2024, 6, 1, 12, tzinfo=timezone.utc))
print(u.astimezone(timezone(timedelta(hours=-3))).isoformat())
