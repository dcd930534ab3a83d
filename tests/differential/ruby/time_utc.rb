t = Time.utc(2024, 2, 29, 13, 45, 30.5)
puts t, t.inspect
puts t.year, t.month, t.day, t.hour, t.min, t.sec, t.usec, t.wday, t.yday, t.zone, t.utc?, t.to_i, t.to_f
puts t.strftime("%Y-%m-%d %H:%M:%S %A %B %j %U %W %a %b %p %I %y %Z %z %% %e %-d %-m %L %N %s %u %C")
puts t + 86400, t - 3600 * 24 * 60, (Time.utc(2024, 12, 25) - t).round(3), t.round.sec, t.to_a.first(6).inspect
puts Time.at(0).utc, Time.at(1_700_000_000).utc, Time.at(1.5).utc.usec, Time.utc(2000, 1, 1) < Time.utc(2000, 1, 2)
puts Time.gm(2024, "jan", 1).month, Time.utc(2024, 3, 10).sunday?, t.monday?, t.strftime("%-I:%M%P")
