class K
  attr_reader :v
  def initialize(v) = @v = v
  def ==(o) = o.is_a?(K) && v == o.v
  alias eql? ==
  def hash = v.hash
end
p K.new(1) == K.new(1), K.new(1).equal?(K.new(1)), [K.new(1), K.new(1)].uniq.size, { K.new(2) => :x }[K.new(2)]
p 1 == 1.0, 1.eql?(1.0), 1.equal?(1), "a".equal?("a"), :a.equal?(:a), nil.to_a, [1, [2]].hash == [1, [2]].hash
p 1.frozen?, "x".dup.frozen?, [1].frozen?, nil.frozen?, :s.frozen?, Object.new.frozen?
