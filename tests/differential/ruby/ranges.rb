r = (1..10)
p r.to_a, (1...10).to_a.last, r.sum, r.include?(5), r.cover?(2..3), r.min, r.max, r.size, r.step(3).to_a
p ("a".."e").to_a, ("aa".."ad").to_a, (1.0..2.0).include?(1.5), (1..).first(3), (..5).include?(3)
p r.each_slice(3).to_a, r.select(&:even?), r.to_a.reverse.first(2), (1..10) % 3, r.minmax, (10..1).to_a
p r.sum { |x| x * x }, r.reduce(1, :*), r.find { |x| x * x > 40 }, r.tally.size, Range.new(1, 3, true).to_a
