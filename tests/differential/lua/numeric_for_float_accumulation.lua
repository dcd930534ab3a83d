local s = 0 for i = 1, 10 do s = s + 0.1 end print(s, s == 1, string.format("%.20f", s))
local p = 1 for i = 1, 64 do p = p * 2 end print(p, math.type(p))
local q = 1.0 for i = 1, 1100 do q = q * 2 end print(q, -q)
print(math.floor(-7 / 2), -7 // 2, math.ceil(7 / 2), (7 / 2) // 1)
