require "time"
puts Time.parse("2023-07-04 08:09:10 UTC").utc, Time.iso8601("2011-11-04T00:05:23+04:00").utc, Time.strptime("04/Jul/2023:08:09:10 +0200", "%d/%b/%Y:%H:%M:%S %z").utc
puts Time.utc(2024, 1, 2, 3, 4, 5).iso8601, Time.utc(2024, 1, 2, 3, 4, 5, 678000).iso8601(3), Time.utc(2024, 1, 2).httpdate, Time.utc(2024, 1, 2).rfc2822, Time.utc(2024, 1, 2).xmlschema
puts Time.at(1234567890).utc.strftime("%c"), Time.utc(1999, 12, 31, 23, 59, 59).succ rescue puts "no succ"
begin
  Time.parse("not a time")
rescue ArgumentError => e
  puts "ArgumentError: #{e.message}"
end
