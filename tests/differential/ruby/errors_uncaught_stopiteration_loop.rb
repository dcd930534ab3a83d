e = [1].each
puts e.next
loop do
  puts e.next
end
puts "loop swallowed StopIteration"
raise IndexError
