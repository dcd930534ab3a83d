parts = (0...300).map(&:to_s)
s = parts.join(",")
puts s.length, s[0, 40], s[-20..], parts.sum(&:length), s.count(","), s.include?("299")
buf = +""
10.times { |i| buf << "row #{format('%03d', i)}: #{'#' * (i % 5)}\n" }
puts buf
puts "ab" * 3 + "c", ["x"] * 3 * "-", "a".ord.chr, "%c" % 10004
