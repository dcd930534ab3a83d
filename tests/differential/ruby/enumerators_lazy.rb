e = [1, 2, 3].each
p e.next, e.next, e.next
begin
  e.next
rescue StopIteration => ex
  puts "stop: #{ex.class}"
end
fib = Enumerator.new do |y|
  a, b = 0, 1
  loop { y << a; a, b = b, a + b }
end
p fib.take(12), fib.lazy.select(&:odd?).first(5), fib.each_slice(3).first(2)
gen = Enumerator.new { |y| 3.times { |i| y.yield i, i * i } }
p gen.to_a, gen.with_index(1).to_a, [4, 5].each.with_index(1).map { |x, i| x * i }
p (1..3).each_entry.to_a, [1, 2, 3].each.next, %w[a b c].each_with_index.to_h.to_a, (1..3).zip(4..6)
p (1..20).lazy.map { _1 * 3 }.reject(&:even?).first(3)
