xs = [5, 3, 8, 1, 9, 2]
xs.push(7); xs.unshift(0); xs.concat([4, 6]); xs << 10
p xs, xs.length, xs.index(8), xs.count(3), xs.first, xs.last(2), xs.take(3), xs.drop(8)
p xs.pop, xs.shift, xs, xs.delete(8), xs.delete_at(0), xs, xs.insert(2, :x), xs.compact
xs.delete(:x)
p xs.sort, xs.sort.reverse, xs[1, 3], xs[1..3], xs[-1], xs.values_at(0, 2, 99), xs.fetch(1), xs.dig(0)
p [1, 2] * 3, [1, 2] + [3], [1, 2, 2, 3] - [2], [1, 2] & [2, 3], [1, 2] | [2, 3], [[1, 2], [3]].flatten, [1, [2, [3, [4]]]].flatten(1)
p [3, 1, 2].sort!, [1, nil, 2, nil].compact, [1, 1, 2].uniq, [1, 2, 3].rotate, [1, 2, 3].sample(random: Random.new(1)).class
p Array.new(3) { |i| i * i }, Array.new(2, "x"), [0] * 3, %w[a b], %i[a b], Array(nil), Array([1]), Array(1..3)
