# expected-difference: the sandbox's Python ships no time-zone database (tzdata), so ZoneInfo("Europe/Paris") raises ZoneInfoNotFoundError
from datetime import datetime
from zoneinfo import ZoneInfo
print(datetime(2024, 7, 1, 12, tzinfo=ZoneInfo("Europe/Paris")).isoformat())
