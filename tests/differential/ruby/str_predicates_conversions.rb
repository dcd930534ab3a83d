%w[123 12.5 abc 0x1A 1e3 -7 12abc].each do |s|
  puts [s, s.to_i, s.to_f, (Integer(s) rescue "err"), (Float(s) rescue "err"), s.match?(/\A\d+\z/)].inspect
end
p "ff".hex, "777".oct, "0b101".to_i(0), "z".to_i(36), 255.to_s(2), 255.to_s(16), "abc".to_sym, :sym.to_s
p "".empty?, " ".strip.empty?, nil.to_s, nil.to_a, 3.to_s.rjust(3, "0"), "12".to_c, "3/4".to_r
