local t = setmetatable({}, {__index = function(t, k) return t[k] end})
print(pcall(function() return t.x end))
local function g() return tostring(setmetatable({}, {__tostring = g})) end
print(pcall(g))
print(pcall(load, string.rep("(", 300) .. "1" .. string.rep(")", 300)))
