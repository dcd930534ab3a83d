[0, -1, 2.5, -0.0, Float::NAN, Float::INFINITY, 10**20, Rational(1, 2)].each do |n|
  p [n, n.integer?, n.finite?, n.positive?, n.negative?, (n.zero? rescue :err), n.real?, n.class]
end
p 5.0 == 5, 5.0.eql?(5), 0.1 + 0.2 == 0.3, (0.1 + 0.2 - 0.3).abs < Float::EPSILON
