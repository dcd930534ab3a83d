local t = {1, 2, 3}
t[5] = 5
print(#t == 3 or #t == 5)
local u = {}
for i = 1, 10 do u[i] = i end
for i = 6, 10 do u[i] = nil end
print(#u)
print(#{n = 1}, #{nil}, #{1, nil}, #"", #{[1] = 1, [2] = 2})
