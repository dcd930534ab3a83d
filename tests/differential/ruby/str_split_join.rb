p "a,b,,c".split(",")
p "a,b,,c,,".split(",")
p "a,b,,c,,".split(",", -1)
p "a b  c\td\n".split
p "a,b,c,d".split(",", 2)
p "abc".chars, "abc".bytes, "a\nb\r\nc".lines, "a\nb".each_line.map(&:chomp)
p %w[x y z].join("-"), [1, [2, [3]]].join(","), "key=value=more".partition("="), "a.b.c".rpartition(".")
p "hello world".scan(/o/).size, "1,2;3".split(/[,;]/)
