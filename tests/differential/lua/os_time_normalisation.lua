local t = {year = 2023, month = 1, day = 0, hour = 25, min = 61, sec = -1}
print(os.time(t))
print(t.year, t.month, t.day, t.hour, t.min, t.sec, t.yday, t.wday, t.isdst)
local u = {year = 2024, month = 14, day = 1, hour = 0, min = -30}
print(os.time(u), u.year, u.month, u.day, u.hour, u.min, u.wday, u.yday)
local v = {year = 2024, month = 2, day = 30, hour = 12}
print(os.time(v), v.month, v.day)
local w = {year = 2024, month = 3, day = 1, hour = 0, sec = 86400 * 365}
print(os.time(w), w.year, w.month, w.day)
local x = {year = "2024", month = "5", day = 5.0}
print(os.time(x), x.hour, math.type(x.year))
