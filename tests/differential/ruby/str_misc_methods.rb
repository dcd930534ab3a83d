s = "Hello World"
p s.each_char.to_a.uniq.size, s.sum, s.ord, s.succ, "az".succ, "zz".succ, "a9".next
p s.chars.sort.join, s.chars.tally.max_by { |_, v| v }, s.downcase.count("lo")
p s.start_with?(/h/i), s =~ /World/, s.casecmp("HELLO WORLD"), s.casecmp?("hello world")
p s.each_char.with_index.select { |c, i| c == "o" }.map(&:last)
p "snake_case_word".split("_").map.with_index { |w, i| i.zero? ? w : w.capitalize }.join
p "CamelCaseString".gsub(/([A-Z])/) { "_" + $1.downcase }.sub(/\A_/, "")
p "abc" <=> "abd", "b" * 3 + "a", "%s" % nil.inspect, "text".freeze.frozen?
