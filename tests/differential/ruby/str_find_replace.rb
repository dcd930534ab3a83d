s = "the quick brown fox jumps over the lazy dog"
p s.index("the"), s.rindex("the"), s.index("cat"), s.count("o"), s[4, 5], s[4..8], s[-3..], s[/q\w+/]
p s.sub("the", "a"), s.gsub("the", "a"), s.gsub(/o/) { |m| m.upcase }, s.tr("a-y", "b-z")
p s.gsub(/(\w+) (\w+)/, '\2 \1'), s.sub(/(?<first>\w+)/, '<\k<first>>')
p s.reverse[0, 5], s.slice(0, 3), s.each_char.first(3), s.center(50, "*")
t = +"mutable"
t << " string"; t.insert(0, ">> "); t[0, 2] = "<<"
p t, t.length, t.frozen?, "lit".frozen?
