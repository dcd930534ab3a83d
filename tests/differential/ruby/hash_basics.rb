h = { "b" => 2, "a" => 1 }
h["c"] = 3
puts h.size, h.key?("a"), h.fetch("a"), h.fetch("z", 0), h["z"].inspect, h.dig("a")
puts h.keys.inspect, h.values.inspect, h.to_a.inspect, h.sort.to_a.inspect
h.each { |k, v| puts "#{k}=#{v}" }
h.delete("b")
puts h.to_a.inspect, h.map { |k, v| [k.upcase, v * 10] }.to_h.to_a.inspect
puts h.select { |_, v| v > 1 }.keys.inspect, h.min_by { |_, v| v }.inspect, h.sum { |_, v| v }
puts h.sort_by { |k, v| -v }.first.inspect, h.count, h.invert.to_a.inspect, h.key(3).inspect, h.any? { |k, v| v > 2 }
