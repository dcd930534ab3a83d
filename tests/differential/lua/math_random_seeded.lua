math.randomseed(42)
local t = {}
for i = 1, 5 do t[#t + 1] = math.random(1, 100) end
print(table.concat(t, " "))
print(math.random(10), math.random(5, 5), math.random(0) ~= nil)
math.randomseed(7, 3)
print(math.random(1, 1000000), string.format("%.6f", math.random()))
print(pcall(math.random, 2, 1), pcall(math.random, 1, 2, 3))
