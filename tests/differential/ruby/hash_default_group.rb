counts = Hash.new(0)
"the quick brown the lazy the end".split.each { |w| counts[w] += 1 }
puts counts.sort_by { |w, c| [-c, w] }.map { |w, c| "#{w}:#{c}" }.join(" ")
lists = Hash.new { |hash, k| hash[k] = [] }
[["a", 1], ["b", 2], ["a", 3]].each { |k, v| lists[k] << v }
puts lists.to_a.inspect, lists.default_proc.nil?, counts.default
grouped = %w[apple avocado banana blueberry cherry].group_by { |w| w[0] }
puts grouped.keys.inspect, grouped.values.map(&:size).inspect
tally = %w[a b a c a b].tally
puts tally.to_a.inspect, tally.max_by(&:last).inspect, tally.sort_by(&:last).to_a.inspect
puts({ a: 1 }.merge({ a: 2, b: 3 }) { |key, old, new| old + new }.to_a.inspect)
puts({ a: 1, b: 2 }.transform_values { |v| v * 10 }.to_a.inspect, { a: 1 }.transform_keys(&:to_s).keys.inspect)
puts({ a: 1, b: nil }.compact.size, { a: { b: { c: 42 } } }.dig(:a, :b, :c), { b: 1, a: 2 }.sort.to_h.keys.inspect)
