p 0.5.rationalize, 0.1.to_r, 0.75.to_r, 3.0.to_i, 3.7.floor, 3.2.ceil, 3.14159.round(2), 3.14159.floor(2), 3.14159.ceil(2)
p 1.5.floor(-1), 15.5.round(-1), 12.345.truncate(1), (0.1 + 0.2).round(15), 1e2.to_i, 2.0**0.5
p 10.0.divmod(3), -7.5.abs, 3.0.nan?, (0.0 / 0.0).to_s, 1.0.infinite?, (1 / 0.0).infinite?, 1.23e-10.to_s
p Math.sqrt(2), Math.cbrt(27), Math::PI, Math::E, Math.log(100, 10), Math.log2(1024), Math.log10(0.001)
p Math.sin(Math::PI / 6), Math.cos(0), Math.atan2(1, 1), Math.hypot(3, 4)
begin
  Math.sqrt(-1)
rescue Math::DomainError => e
  puts "#{e.class}: #{e.message}"
end
