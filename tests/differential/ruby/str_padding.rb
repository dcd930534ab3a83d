%w[a abc abcdef].each do |w|
  puts "[#{w.ljust(5)}] [#{w.rjust(5, '.')}] [#{w.center(6, '*')}]"
end
puts "42".rjust(5, "0"), "7".ljust(3, "ab"), "x" * 5
puts "%-8s|%8s|" % %w[l r]
