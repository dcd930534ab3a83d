["plain", "it's", 'say "hi"', "tab\tnl\n", "\x00\x7f", "é☃𝄞", "\u200b", "\e[0m"].each do |s|
  puts s.inspect, s.dump
end
p :sym, :"with space", "sym".to_sym, :a?, :b=, :+
