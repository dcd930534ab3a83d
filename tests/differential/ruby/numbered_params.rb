p [1, 2, 3].map { _1 * 10 }, [[1, 2], [3, 4]].map { _1 + _2 }, %w[a b].each_with_index.map { "#{_1}#{_2}" }
