module Greet
  def greet = "Hello from #{self.class}"
end
module Countable
  def self.included(base)
    base.extend(ClassMethods)
  end
  module ClassMethods
    def instances = @instances ||= 0
  end
end
class Person
  include Greet
  include Countable
  include Enumerable
  def initialize(*items) = @items = items
  def each(&b) = @items.each(&b)
end
pr = Person.new(3, 1, 2)
p pr.greet, Person.instances, pr.sort, pr.map { |x| x * 2 }, pr.include?(2), pr.min_by { |x| -x }, pr.sum, pr.to_a
p Person.include?(Greet), Person.ancestors.include?(Enumerable), Greet.instance_methods
module Util
  module_function
  def twice(x) = x * 2
end
p Util.twice(21)
