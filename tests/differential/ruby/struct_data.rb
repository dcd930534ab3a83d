Point = Struct.new(:x, :y) do
  def dist
    Math.sqrt(x**2 + y**2)
  end
end
pt = Point.new(3, 4)
p pt.x, pt[1], pt.dist, pt.to_a, pt == Point.new(3, 4), pt.members
pt.x = 10
puts pt.x, pt.to_h.to_a.inspect
P3 = Struct.new(:a, :b, keyword_init: true)
q = P3.new(a: 1, b: 2)
puts q.a + q.b, q.to_a.inspect
x, y = *Point.new(1, 2)
puts x + y
