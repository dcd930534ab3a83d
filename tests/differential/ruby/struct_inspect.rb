# expected-difference: the Struct and its inspect agree; its to_h Hash is inspected as {a: 1, b: 2} by Ruby 3.4 and later (the sandbox's 4.0), as {:a=>1, :b=>2} by Debian's Ruby 3.1
P = Struct.new(:a, :b, keyword_init: true)
p P.new(a: 1, b: 2), P
p P.new(a: 1, b: 2).to_h
