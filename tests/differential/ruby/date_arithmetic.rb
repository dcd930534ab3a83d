require "date"
start = Date.new(2024, 1, 31)
p (0..3).map { |i| (start >> i).to_s }
p (Date.new(2024, 3, 1) - 1).to_s, Date.new(2023, 12, 31).yday, Date.new(2024, 12, 31).yday
p (Date.new(2024, 1, 1)...Date.new(2024, 1, 8)).map(&:wday), Date.new(2024, 1, 1).strftime("%A %-d %B %Y")
p Date::ABBR_DAYNAMES, Date::MONTHNAMES.compact.first(3), Date.new(2000, 2, 28).next_day(2).to_s
p Date.leap?(2100), Date.new(2024, 2, 29).prev_year.to_s, Date.valid_date?(2024, 2, 29), Date.today.is_a?(Date)
d1 = Date.new(1969, 7, 20)
d2 = Date.new(2024, 7, 20)
p (d2 - d1).to_i, (d2 - d1).class, d2.ajd.class, d1.to_time.utc.to_i
