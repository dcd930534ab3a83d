require "json"
['{"a": 1,}', "[1, 2", "", "nul"].each do |bad|
  begin
    JSON.parse(bad)
    puts "parsed #{bad}"
  rescue JSON::ParserError => e
    puts "#{bad.inspect} -> #{e.class} #{e.is_a?(StandardError)}"
  end
end
begin
  JSON.generate(Float::NAN)
rescue JSON::GeneratorError => e
  puts e.class
end
puts JSON.generate(Float::NAN, allow_nan: true)
