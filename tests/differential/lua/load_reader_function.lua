local parts = {"return ", "1 + ", "2"}
local i = 0
local f = load(function() i = i + 1 return parts[i] end)
print(f())
local s, pos = "return 'abc' .. 'def'", 0
print(load(function() pos = pos + 1 if pos <= #s then return s:sub(pos, pos) end end)())
local j = 0
print(load(function() j = j + 1 if j == 1 then return "x = " elseif j == 2 then return "" else return "3" end end))
local k = 0
print(load(function() k = k + 1 if k == 1 then return "syntax error here" end end, "=rd"))
print(pcall(load, function() error("boom") end))
local once = 0
print(load(function() once = once + 1 if once == 1 then return 12 end end))
print(type(load(function() return nil end, "=empty")))
local n = 0
local g = load(function() n = n + 1 if n <= 3 then return "print('piece " .. n .. "')\n" end end, "=gen")
g()
