require "json"
s = '{"a": [1, 2.5, "x", null, true, false], "b": {"c": "\u00e9\ud83d\ude00"}, "d": 1e3, "e": -0}'
v = JSON.parse(s)
puts v["a"].inspect, v["b"]["c"], v["d"].class, v["d"], v["e"], v.keys.inspect
sym = JSON.parse('{"x": {"y": 1}}', symbolize_names: true)
puts sym[:x][:y], sym.keys.inspect
puts JSON.parse("[]").inspect, JSON.parse("123"), JSON.parse('"str"'), JSON.parse('{"a": 1, "a": 2}')["a"]
puts JSON.parse('[1.10]', decimal_class: nil).first, JSON.parse('{"b":1,"a":2}').keys.inspect
