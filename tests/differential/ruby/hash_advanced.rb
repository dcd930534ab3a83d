h = { b: 2, a: 1, c: 3 }
puts h.sort_by { |_, v| v }.map { |k, v| "#{k}=#{v}" }.join("&"), h.min_by(2) { |_, v| v }.to_a.inspect
puts h.sum { |_, v| v }, h.each_slice(2).map(&:to_h).map(&:size).inspect, h.filter_map { |k, v| k if v > 1 }.inspect
puts h.to_a.transpose.inspect, h.reduce(0) { |s, (_, v)| s + v }, h.group_by { |_, v| v.odd? }.keys.inspect
puts h.slice(:a, :c).keys.inspect, h.except(:b).keys.inspect, h.values_at(:a, :z).inspect, h.fetch_values(:a, :b).inspect
puts h.key?(:a), h.value?(3), h.count { |_, v| v > 1 }, h.find { |_, v| v == 2 }.inspect, h.sort.first.inspect
h.delete_if { |k, _| k == :a }
h.store(:d, 4)
puts h.keys.inspect, h.length, h.empty?, {}.empty?, h.default.inspect, Hash[[[:x, 1]]].keys.inspect
