add = ->(a, b) { a + b }
sq = proc { |x| (x || 0) * x.to_i }
p add.call(1, 2), add.(3, 4), add[5, 6], sq.call(3), sq.call, add.arity, sq.arity, add.lambda?, sq.lambda?
compose = method(:Integer) >> ->(x) { x * 2 }
p compose.call("21"), [1, 2, 3].map(&->(x) { x + 1 }), %w[a b].map(&:upcase), :upcase.to_proc.call("x")
curried = add.curry
p curried[1][2], [[1, 2], [3, 4]].map { |a, b| a * b }, [[1, [2, 3]]].map { |a, (b, c)| a + b + c }
def yielder
  yield 1, 2
end
yielder { |a, b| p [a, b] }
yielder { |a| p a }
p block_given?
def blk(&b) = b
p blk { 1 }.call, blk.nil?
