["42", "-17", "0x1f", "0b1010", "1_000", "3.9", "  7  ", ""].each do |s|
  v = Integer(s, exception: false)
  puts [s.inspect, v.inspect, s.to_i, Float(s, exception: false).inspect].join(" ")
end
p 1234.5678.floor(2), 1234.5678.round(-2), 1234.digits.reverse, 3.14.to_s.split("."), 10.0.to_s, 10.5.to_i
