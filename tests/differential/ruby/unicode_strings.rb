s = "Ünïcödé 🐍 日本語"
p s.length, s.codepoints.first(3), 0x1F40D.chr("UTF-8"), s.upcase, s.downcase, s.reverse
p ["éclair", "apple", "Zebra", "zoo", "Äpfel"].sort
p "ǆ".capitalize, "Σ".downcase, "ΣΑΣ".downcase, "İstanbul".downcase, "ß".upcase, "ﬀ".upcase
p "café".unicode_normalize(:nfd).codepoints.size, "ﬁ ①".unicode_normalize(:nfkc)
p s.scan(/\p{Han}/), s.scan(/\p{L}+/), "a\u00a0b".split(/\s/), "a\u00a0b".split(/[[:space:]]/)
puts s, s.center(20, "·")
