# expected-difference: Ruby 3.4 and 3.1 inspect a keyword_init Struct differently (3.4 drops the "keyword_init: true" suffix and shows hashes as {a: 1})
P = Struct.new(:a, :b, keyword_init: true)
p P.new(a: 1, b: 2), P
p P.new(a: 1, b: 2).to_h
