(2..20).each do |n|
  next unless (2...n).none? { |d| (n % d).zero? }
  print n, " "
end
puts
i = 0
loop do
  i += 1
  next if i.odd?
  break if i > 8
  print i, ";"
end
puts
def classify(v)
  case v
  when 0 then "zero"
  when Integer then v.negative? ? "negative" : "positive"
  when 1.0..2.0 then "small float"
  when /^\d+$/ then "digits"
  when String, Symbol then "text"
  when [] then "empty"
  else "other"
  end
end
p [0, -3, 4, 1.5, "123", "ab", :s, [], nil].map { |v| classify(v) }
x = 5
p(x > 3 ? "big" : "small", (x if x.odd?), (x unless x.odd?), (:a if false))
puts "until" until (x -= 1) < 2
