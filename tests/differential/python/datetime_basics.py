from datetime import datetime, date, time, timedelta, timezone
d = datetime(2024, 2, 29, 13, 45, 30, 123456, tzinfo=timezone.utc)
print(d, d.isoformat(), d.date(), d.time(), d.timestamp(), d.weekday(), d.isoweekday())
print(d.strftime("%Y-%m-%d %H:%M:%S %A %B %j %U %W %a %b %p %I %y %Z %z %%"))
print(d + timedelta(days=1, hours=12), d - timedelta(weeks=9), d.replace(year=2025, day=28))
print(date(2024, 12, 31).isocalendar(), date(2021, 1, 3).isocalendar(), date.fromordinal(738000))
print(time(9, 5), time(23, 59, 59, 999999).isoformat(timespec="milliseconds"))
print(datetime(2000, 1, 1) < datetime(2000, 1, 2), date(2024, 3, 1) - date(2024, 2, 1))
