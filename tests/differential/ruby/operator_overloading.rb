class Vec
  attr_reader :x, :y
  def initialize(x, y) = (@x, @y = x, y)
  def +(o) = Vec.new(x + o.x, y + o.y)
  def *(k) = Vec.new(x * k, y * k)
  def -@ = Vec.new(-x, -y)
  def [](i) = [x, y][i]
  def ==(o) = [x, y] == [o.x, o.y]
  def to_s = "(#{x}, #{y})"
  def coerce(n) = [Vec.new(n, n), self]
  def each = [x, y].each { yield _1 }
  include Enumerable
end
v = Vec.new(1, 2)
puts v + Vec.new(3, 4), v * 3, -v, v[1], v == Vec.new(1, 2), v.to_a.inspect, v.map { _1 * 10 }.inspect, "#{v}"
