class Ghost
  def method_missing(name, *args)
    name.to_s.start_with?("get_") ? "got #{name.to_s.sub('get_', '')} #{args.inspect}" : super
  end
  def respond_to_missing?(name, priv = false) = name.to_s.start_with?("get_") || super
end
g = Ghost.new
p g.get_thing(1, 2), g.respond_to?(:get_x), g.respond_to?(:other)
class Ghost
  %w[a b].each { |n| define_method("say_#{n}") { n * 3 } }
end
p g.say_a, g.say_b, Ghost.instance_methods(false).sort, g.send(:say_a)
p 5.instance_of?(Integer), Integer === 5, (1..3) === 2, /ab/ === "cab", String === "s", :a.class
o = Object.new
def o.single = "singleton"
p o.single, o.singleton_methods
