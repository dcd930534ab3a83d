# expected-difference: Ruby 3.4 and later (the sandbox's 4.0) inspect a Hash as {"a" => 1, b: 2}; Debian's Ruby 3.1 as {"a"=>1, :b=>2}
h = { "a" => 1, b: 2, 3 => [4], nil => nil }
p h
puts h.to_s, h.inspect
