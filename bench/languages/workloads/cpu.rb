# CPU workload (the same program runs natively and in the engine): integer arithmetic in a
# block loop and string appends into a hash.
s = 0
h = Hash.new { |hash, k| hash[k] = +'' }
1_000_000.times do |i|
  s += i
  h[i % 1000] << 'x' if (i % 10).zero?
end
s + h.size
