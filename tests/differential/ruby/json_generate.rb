require "json"
data = { "name" => "Ada", "age" => 36, "langs" => ["en", "fr"], "ok" => true, "none" => nil, "pi" => 3.14159, "nested" => { "a" => [1, { "b" => 2 }] } }
puts data.to_json
puts JSON.generate(data)
puts JSON.pretty_generate(data)
puts JSON.generate("é☃\n\"q\""), JSON.generate([1.0, 0.1, -0.0, 10**20])
puts({ sym: :val, 1 => 2 }.to_json, [nil, true].to_json, "str".to_json, 42.to_json, nil.to_json)
