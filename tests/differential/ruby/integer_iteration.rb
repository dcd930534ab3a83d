3.times { |i| print i, " " }
puts
1.upto(4) { |i| print i }
puts
10.downto(7).each { |i| print i, "," }
puts
1.step(10, 3) { |i| print i, ";" }
puts
p (1..10).step(4).to_a, 1.0.step(2.0, 0.5).to_a, (1..10).each_slice(3).to_a, (1..6).each_cons(3).first(2)
p (1..Float::INFINITY).lazy.map { |x| x * x }.select(&:even?).first(4)
