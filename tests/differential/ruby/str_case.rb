s = "Hello, World"
puts s.upcase, s.downcase, s.swapcase, s.capitalize
puts "hello world".split.map(&:capitalize).join(" ")
puts "straße".upcase, "ÀÉÎ".downcase, "ǅ".downcase
puts s.start_with?("Hell"), s.end_with?("x", "ld"), s.include?("lo, W")
puts "  pad  ".strip + "|", "xxhixx".delete("x"), "  a ".lstrip + "|", " a  ".rstrip + "|"
puts "aaa".squeeze, "mississippi".squeeze("s"), "hello".tr("el", "ip"), "hello".delete("l")
