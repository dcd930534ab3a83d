text = "The quick brown fox jumps over the lazy dog. " * 3
puts text.strip.gsub(/(.{1,30})(\s+|\z)/, "\\1\n")
lines = "a\nbb\nccc\n".each_line.map(&:chomp)
puts lines.map { |l| l.rjust(4, ".") }, lines.max_by(&:length), lines.sum("") { |l| l[0] }
puts "word " * 3, "x".center(9, "<>"), "trailing\n\n".chomp, "no".chomp("o"), "abc".chop, "  both  ".squeeze(" ")
