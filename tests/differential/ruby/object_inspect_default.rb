class Plain; end
o = Plain.new
puts o.inspect.start_with?("#<Plain"), o.to_s.start_with?("#<Plain:0x"), Plain.name, Plain.to_s, Plain.class
class WithIvars
  def initialize
    @a = 1
    @b = "two"
  end
end
puts WithIvars.new.inspect.sub(/0x\h+/, "ADDR")
p nil, true, 1.0 / 3, 2e-9, :"odd sym", "#{1}", Kernel, method(:puts).arity, [nil, false]
