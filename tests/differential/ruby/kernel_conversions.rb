p Integer("0x1A", 16) rescue p Integer("1A", 16)
p Integer("0b11"), Integer("0o17"), Integer("  42 "), Float("1e3"), Float("1_000.5"), String(42), Array("a"), Hash([[1, 2]]).to_a
p Rational("0.75"), Complex("1+2i"), 3.to_c, 0.1r, 42.to_r, "12abc".to_i, "abc".to_i, "1.5e3xyz".to_f
begin
  Integer(nil)
rescue TypeError => e
  puts "TypeError: #{e.message}"
end
begin
  Integer("12abc")
rescue ArgumentError => e
  puts "ArgumentError: #{e.message}"
end
