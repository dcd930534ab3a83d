s = "e\u0301🇫🇷👍🏽a"
p s.length, s.grapheme_clusters.length, s.each_grapheme_cluster.map(&:bytesize)
p s.scan(/\X/).length, s.chars.length
