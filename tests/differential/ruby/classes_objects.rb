class Animal
  attr_reader :name
  @@count = 0
  def initialize(name)
    @name = name
    @@count += 1
  end
  def self.count = @@count
  def speak = "..."
  def to_s = "#{self.class.name.downcase} #{name}"
  def <=>(other) = name <=> other.name
  include Comparable
end
class Dog < Animal
  def speak = "Woof"
  def initialize(name, breed)
    super(name)
    @breed = breed
  end
end
d = Dog.new("rex", "lab")
a = Animal.new("generic")
puts d, a, d.speak, a.speak, Animal.count, d.is_a?(Animal), Dog.ancestors.take(3).inspect, Dog.superclass
puts d > a, [d, a].min.name, d.respond_to?(:speak), d.instance_variables.inspect, Dog.instance_methods(false).sort.inspect
puts d.frozen?, d.public_send(:speak), Dog.name, Dog.class, d.instance_variable_get(:@breed)
