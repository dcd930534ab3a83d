local V = {}
V.__index = V
local function vec(x, y) return setmetatable({x = x, y = y}, V) end
V.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
V.__mul = function(a, k) return vec(a.x * k, a.y * k) end
V.__eq = function(a, b) return a.x == b.x and a.y == b.y end
V.__lt = function(a, b) return a.x < b.x end
V.__le = function(a, b) return a.x <= b.x end
V.__tostring = function(v) return "(" .. v.x .. "," .. v.y .. ")" end
V.__len = function(v) return 2 end
V.__unm = function(v) return vec(-v.x, -v.y) end
V.__concat = function(a, b) return tostring(a) .. "&" .. tostring(b) end
V.__idiv = function(a, b) return "idiv" end
V.__mod = function(a, b) return "mod" end
V.__band = function() return "band" end
V.__shl = function() return "shl" end
V.__bnot = function() return "bnot" end
local a, b = vec(1, 2), vec(3, 4)
print(tostring(a + b), tostring(a * 3), a == vec(1, 2), a < b, a <= b, a > b, #a, tostring(-a))
print(a .. b, a .. "s", 1 .. a, a // 1, a % 2, a & 1, 1 << a, ~a)
