items = [1, 2, 3]
puts items.sum
puts "total: " + items.sum
