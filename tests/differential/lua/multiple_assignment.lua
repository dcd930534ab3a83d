local a, b, c = 1, 2 print(a, b, c)
a, b = b, a print(a, b)
local t = {1, 2}
local i = 1
i, t[i] = i + 1, 20
print(i, t[1], t[2])
local function mr() return 1, 2, 3 end
local x, y, z, w = mr() print(x, y, z, w)
local p, q = mr(), 10 print(p, q)
print({mr(), mr()}[4], #{mr(), mr()}, #{mr(), (mr())})
