def f(x)
  r = 10 / x
rescue ZeroDivisionError => e
  puts "rescued #{e.message}"
  :handled
else
  puts "no error #{r}"
  :ok
ensure
  puts "ensure #{x}"
end
p f(2), f(0)
attempts = 0
begin
  attempts += 1
  raise IOError, "flaky" if attempts < 3
  puts "succeeded after #{attempts}"
rescue IOError
  retry
end
x = Integer("42") rescue 0
y = Integer("zz") rescue -1
p x, y
def checked = yield
p(checked { 1 } || 2)
r = catch(:found) do
  [1, 2, 3].each { |i| throw :found, i * 10 if i == 2 }
  :none
end
p r
