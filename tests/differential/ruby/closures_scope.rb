def counter
  n = 0
  -> { n += 1 }
end
c = counter
c.(); c.()
p c.()
fs = (0..2).map { |i| -> { i } }
p fs.map(&:call)
x = 10
[1, 2].each { |v| x += v }
p x
y = 5
define_method(:reads_y) { y } rescue p $!.class
1.times do
  z = 1
end
p defined?(z), defined?(x), defined?(puts), defined?(String), defined?(@iv)
