p "1234567890".gsub(/(\d)(?=(\d{3})+$)/, '\1,')
p "singing and dancing while thinking".scan(/\b\w+(?=ing\b)/)
p "hello big world".gsub(/\b(\w)(\w*)/) { $1.upcase + $2 }
p "key: value\nother:  thing\nbad line".scan(/^(\w+):\s*(.*)$/)
p "caaat baa a".enum_for(:scan, /a+/).map { Regexp.last_match.offset(0) }
p "Hello HELLO hello".scan(/hello/i), "a\nc abc".scan(/a.c/m), "foo boo".gsub("o", "0"), Regexp.escape("a.b*c?")
re = /(\d+) \s* ([a-z]+)  # number then unit/x
p re.match("42   kg").captures, re.source.length, re.options & Regexp::EXTENDED, /a/ == /a/, Regexp.union("a.", /b+/)
p "ab a".scan(/(a)(b)?/), "aaa".sub(/a*?/, "X"), "abc".gsub(/b?/, "-"), "2 + 3".gsub(/\d/) { |d| d.to_i * 2 }
