h = {}
%w[zebra apple mango kiwi].each_with_index { |k, i| h[k] = i }
h.each_pair { |k, v| puts "#{k} -> #{v}" }
h.delete("apple")
h["apple"] = 99
puts h.keys.join(","), h.first.inspect, h.to_a.last.inspect
puts h.min_by { |k, _| k }.inspect, h.sort.map(&:first).join(","), h.filter_map { |k, v| k if v.odd? }.inspect
puts h.each_with_index.map { |(k, v), i| "#{i}:#{k}" }.join(" "), h.find { |k, v| v > 1 }.inspect
puts h.reject { |k, _| k.start_with?("m") }.keys.inspect, h.partition { |_, v| v > 2 }.map(&:to_h).map(&:keys).inspect
