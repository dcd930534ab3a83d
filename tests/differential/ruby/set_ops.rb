require "set"
a = Set[1, 2, 3, 4]
b = Set[3, 4, 5]
p (a | b).to_a.sort, (a & b).to_a, (a - b).to_a, (a ^ b).to_a.sort
p a.subset?(Set[1, 2, 3, 4, 5]), a.disjoint?(Set[9]), a.include?(3), a.size, Set.new([1, 1, 2]).size
s = Set.new; s << 1; s.add(2); s.add?(2); s.delete(1); p s.to_a, s.empty?, a.map { |x| x * 2 }.class
p a.group_by(&:odd?).transform_values(&:size).to_a, a.sum, a.min, a.sort.reverse, a.to_a.first(2)
