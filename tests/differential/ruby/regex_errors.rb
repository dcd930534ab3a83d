["(", "[a-", "a{2,1}", "*a", "(?<n>a)\\k<m>"].each do |pat|
  Regexp.new(pat)
  puts "ok #{pat}"
rescue RegexpError => e
  puts "#{pat.inspect} -> #{e.message}"
end
