# expected-difference: Ruby 3.4 (the sandbox's) inspects a Hash as {"a" => 1, b: 2}; Debian's Ruby 3.1 as {"a"=>1, :b=>2}
h = { "a" => 1, b: 2, 3 => [4], nil => nil }
p h
puts h.to_s, h.inspect
