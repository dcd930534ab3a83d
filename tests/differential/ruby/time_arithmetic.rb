t = Time.utc(2024, 3, 31, 23, 30, 0)
p (t + 60 * 45).to_s, (t - Time.utc(2024, 1, 1)) / 86400, t.strftime("%Y-W%V-%u"), t.to_date.to_s rescue p :needs_date
durations = [59, 3600, 86399, 90061]
durations.each do |s|
  h, rem = s.divmod(3600)
  m, sec = rem.divmod(60)
  puts format("%02d:%02d:%02d", h, m, sec)
end
p Time.utc(2024, 1, 1).to_i - Time.utc(2023, 1, 1).to_i, Time.at(0, 123456, :usec).utc.usec, Time.utc(2024, 2, 29) + 365 * 86400
p [Time.utc(2024, 5, 1), Time.utc(2023, 5, 1)].min.year, Time.utc(2024, 1, 1).sunday?, Time.utc(2024, 1, 1).to_a[6]
