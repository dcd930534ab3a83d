n = 0
n += 1 while n < 10
p n
m = 10
m -= 3 until m < 0
p m
begin
  n += 5
end while n < 12
p n
for i in 1..3 do print i end
puts
p i
res = [1, 2, 3].each_with_index.map do |v, idx|
  next 0 if v == 2
  v * idx
end
p res
