from datetime import datetime, date, timezone
print(datetime.strptime("2023-07-04 08:09:10", "%Y-%m-%d %H:%M:%S"))
print(datetime.strptime("04/Jul/2023:08:09:10 +0200", "%d/%b/%Y:%H:%M:%S %z"))
print(datetime.fromisoformat("2011-11-04T00:05:23+04:00"), datetime.fromisoformat("2011-11-04"))
print(datetime.fromisoformat("2011-11-04T00:05:23Z"), date.fromisoformat("2019-12-04"))
print(datetime.fromtimestamp(0, tz=timezone.utc), datetime.fromtimestamp(1700000000, timezone.utc))
print(datetime.utcfromtimestamp(86400 * 365.25 * 30))
try:
    datetime.strptime("2023-13-01", "%Y-%m-%d")
except ValueError as e:
    print("ValueError:", e)
try:
    date(2023, 2, 29)
except ValueError as e:
    print("ValueError:", e)
