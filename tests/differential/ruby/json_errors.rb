# expected-difference: the json gem's parse errors are worded differently in Ruby 4.0's json 2.18 (the sandbox) and Ruby 3.1's json 2.6 (Debian)
require "json"
['{"a": 1,}', "[1, 2", "{'a': 1}", "", "tru", '{"a" 1}'].each do |bad|
  JSON.parse(bad)
rescue JSON::ParserError => e
  puts "#{bad.inspect} -> #{e.class}: #{e.message}"
end
