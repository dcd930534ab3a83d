[0.1, 0.2, 0.1 + 0.2, 1.0 / 3, 2.0 / 3, 1e16, 1e15, 1e-4, 1e-5, 123456789.123456789, 1.0, -0.0, 5e-324, 1.7976931348623157e308, 100.0, 1e20, 1.5e-7].each do |v|
  puts [v.to_s, v.inspect, format("%.17g", v), v.round(3)].join(" ")
end
p Float::INFINITY, -Float::INFINITY, Float::NAN.nan?, 0.1 * 3, 1.1 * 1.1, Float::EPSILON, Float::MAX, Float::MIN
