import calendar, time
print(calendar.isleap(2000), calendar.isleap(1900), calendar.leapdays(2000, 2025), calendar.monthrange(2024, 2))
print(calendar.weekday(2024, 7, 4), calendar.day_name[0], calendar.month_abbr[12], calendar.timegm((2024, 1, 1, 0, 0, 0)))
print(calendar.month(2024, 2))
cal = calendar.Calendar(firstweekday=6)
print(list(cal.itermonthdays(2024, 2))[:10])
print(time.gmtime(0), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1234567890)))
print(time.asctime(time.gmtime(1e9)), time.mktime(time.gmtime(0)) if False else "skip")
