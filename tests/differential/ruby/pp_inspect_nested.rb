data = [1, [2, [3, [4, [5]]]], "str", :sym, 1.5, nil, true, 1..3, Object, Comparable]
pp data
p data.flatten, data.flatten.compact.size, data.to_s.length
