class Version
  include Comparable
  attr_reader :parts
  def initialize(s) = @parts = s.split(".").map(&:to_i)
  def <=>(o) = parts <=> o.parts
  def to_s = parts.join(".")
end
vs = %w[1.10.0 1.2.3 1.2.10 0.9 1.2].map { |s| Version.new(s) }
puts vs.sort.join(" "), vs.max, vs.min, Version.new("1.2") == Version.new("1.2"), Version.new("2.0").between?(vs.min, vs.max)
puts Version.new("1.5").clamp(Version.new("1.0"), Version.new("1.3"))
p 1 <=> 2, "b" <=> "a", [1, 2] <=> [1, 3], nil <=> 1, 1 <=> "a"
