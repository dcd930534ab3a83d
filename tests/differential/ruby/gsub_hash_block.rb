p "cat hat bat".gsub(/[chb]at/, "cat" => "dog", "hat" => "cap"), "hello".gsub(/l/, "l" => "L")
p "2023-01-05".tr("-", "/"), "hello world".each_char.select { |c| "aeiou".include?(c) }.join
p "a-b_c d".split(/[-_ ]/).map(&:capitalize).join, "Hello"[1..], "Hello"[10], "Hello"[-2, 2]
p "ruby is fun".split.map(&:reverse).join(" "), "abc".each_char.map(&:ord).sum, "title case words".split.map(&:capitalize) * " "
