def kw(a, b = 2, *rest, c:, d: 4, **opts, &blk)
  [a, b, rest, c, d, opts, blk&.call]
end
p kw(1, c: 3), kw(1, 5, 6, 7, c: 3, e: 9) { :blk }.map { |v| v.is_a?(Hash) ? v.to_a : v }
def opt(h = {}) = h
p opt(a: 1).to_a, opt.to_a
[-> { kw }, -> { kw(1) }, -> { kw(1, c: 1, **{ "s" => 1 })[5].to_a }].each do |f|
  p f.call
rescue ArgumentError => e
  puts "ArgumentError: #{e.message}"
end
def splat(*a, **k) = [a, k.to_a]
p splat(1, 2, x: 3), splat(*[4, 5], **{ y: 6 }), method(:kw).arity, method(:kw).parameters
