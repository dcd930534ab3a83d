require "date"
d = Date.new(2024, 2, 29)
puts d, d.inspect.start_with?("#<Date: 2024-02-29"), d + 1, d >> 1, d << 12, d.next_year, d.leap?, d.yday, d.cwday, d.cweek, d.jd
puts d.strftime("%d/%m/%Y %a %b"), (Date.new(2024, 12, 25) - d).to_i, d.mjd, Date.valid_date?(2023, 2, 29), d.end_of_month rescue puts "no end_of_month"
puts Date.parse("2023-07-04").wday, Date.strptime("04/07/2023", "%d/%m/%Y"), Date.iso8601("2019-W01-1"), Date.new(2024, -1, -1)
puts (Date.new(2024, 1, 1)..Date.new(2024, 1, 10)).count(&:saturday?), Date.new(2024, 1, 31).next_month, Date.gregorian_leap?(1900)
dt = DateTime.new(2011, 11, 4, 0, 5, 23, "+04:00")
puts dt, dt.new_offset(0), dt.to_time.utc, DateTime.parse("2001-02-03T04:05:06+07:00").hour
begin
  Date.new(2023, 2, 29)
rescue => e
  puts "#{e.class}: #{e.message}"
end
