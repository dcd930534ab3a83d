nums = (1..10).to_a
p nums.map { |x| x * x }, nums.select(&:even?), nums.reject(&:even?), nums.find { |x| x > 4 }, nums.find_index(5)
p nums.reduce(:+), nums.inject { |a, b| a * b }, nums.sum, nums.min, nums.max, nums.minmax, nums.sum(0.0) / nums.size
p nums.partition(&:odd?), nums.group_by { |x| x % 3 }.to_a, nums.each_slice(4).map(&:sum), nums.chunk_while { |a, b| b == a + 1 }.to_a
p nums.zip(nums.map(&:to_s)).first(2), nums.each_with_index.map { |x, i| x * i }.last, nums.each_with_object([]) { |x, acc| acc << x if x > 8 }
p nums.take_while { |x| x < 4 }, nums.drop_while { |x| x < 8 }, nums.any? { |x| x > 9 }, nums.all?(Integer), nums.none?(&:zero?), nums.count(&:even?)
p nums.min_by { |x| (x - 5).abs }, nums.max_by(2) { |x| x % 4 }, nums.sort_by { |x| -x }.first(3), nums.sum { |x| x * 2 }
p nums.filter_map { |x| x * 2 if x.odd? }, nums.map(&:odd?).tally.to_a, nums.flat_map { |x| [x, -x] }.first(4), nums.cycle.first(12).last(2)
p %w[apple pie a la mode].map(&:length), %w[b c a].sort.reverse, %w[bb a ccc].sort_by(&:size), %w[a b c].each_with_index.to_a
