m = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
p m.transpose, m.map(&:sum), m.flatten.each_slice(2).to_a, m.map { |r| r.map { |v| v * 2 } }
p m.each_with_index.map { |r, i| r[i] }, m.reverse.map(&:reverse), m.flat_map(&:itself).minmax
puts m.map { |row| row.map { |v| v.to_s.rjust(3) }.join }.join("\n")
grid = Array.new(3) { Array.new(3, ".") }
grid[1][1] = "#"
puts grid.map(&:join)
p m.product([0]).first(2), m.first.product([:a, :b]).size, m.combination(2).count, [1, 2, 3].permutation.first(3)
p [1, 2, 3].each_slice(2).to_a, [1, 2, 3, 4].each_cons(2).map { |a, b| b - a }, [[1, :a], [2, :b]].to_h.keys
