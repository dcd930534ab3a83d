from datetime import datetime
from zoneinfo import ZoneInfo
print(datetime(2024, 7, 1, 12, tzinfo=ZoneInfo("Europe/Paris")).isoformat())
