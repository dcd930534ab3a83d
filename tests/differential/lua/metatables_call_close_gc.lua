local callable = setmetatable({}, {__call = function(self, a, b) return a + b end})
print(callable(2, 3))
do
  local x <close> = setmetatable({}, {__close = function(o, e) print("closed", e) end})
  print("in block")
end
print(pcall(function()
  local y <close> = setmetatable({}, {__close = function(o, e) print("closing with", e) end})
  error("oops")
end))
local c <const> = 10
print(c, pcall(load, "local z <const> = 1; z = 2"))
print(getmetatable("abc").__index == string, getmetatable(setmetatable({}, {__metatable = "locked"})))
print(pcall(setmetatable, setmetatable({}, {__metatable = 1}), {}))
