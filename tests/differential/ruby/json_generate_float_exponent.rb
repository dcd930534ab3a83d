# expected-difference: json 2.18 (Ruby 4.0, the sandbox) writes a Float that Float#to_s shows with an exponent in a shorter form of its own (1e+100, 0.000000025); json 2.6 (Debian's Ruby 3.1) writes Float#to_s (1.0e+100, 2.5e-08); both parse back to the same numbers
require "json"
puts JSON.generate([1e100, 2.5e-8, -1e20, 1e15, 123456789.0e10])
puts [1e100].to_json, JSON.pretty_generate("x" => 1e-5)
p JSON.parse(JSON.generate([1e100, 2.5e-8])) == [1e100, 2.5e-8]
