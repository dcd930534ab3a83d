puts format("%s has %d items costing %.2f", "cart", 3, 9.5)
puts format("%5s|%-5s|%05d|%+.1e", "a", "b", 42, 12345.6789)
puts format("%x %X %o %b %c %% %08.3f", 255, 255, 8, 5, 65, 3.14159)
puts format("%<a>s-%<b>05.1f", a: "x", b: 2.25)
puts format("%{a} and %{b}", a: 1, b: 2)
puts "%-10s|%10s|" % ["left", "right"], "%.3s" % "abcdef", "%+d %+d" % [5, -5]
puts 1234567.to_s.reverse.scan(/\d{1,3}/).join(",").reverse
puts "%e %g %g %g" % [12345.678, 1e20, 1e-5, 123456789.0]
puts "%#x %#o %#b" % [255, 8, 5]
