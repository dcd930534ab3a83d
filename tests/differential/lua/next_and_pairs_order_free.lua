local t = {x = 1, y = 2, z = 3, 10, 20}
local sum, count = 0, 0
for k, v in pairs(t) do sum = sum + v count = count + 1 end
print(sum, count)
print(next({}, nil), pcall(next, {}, "missing"))
local mt = setmetatable({}, {__pairs = function(t) return function(_, k) if not k then return 1, "one" end end, t, nil end})
for k, v in pairs(mt) do print(k, v) end
t.x = nil
local n = 0 for _ in pairs(t) do n = n + 1 end print(n)
