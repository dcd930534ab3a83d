local getters, setters = {}, {}
for i = 1, 3 do
  local v = i
  getters[i] = function() return v end
  setters[i] = function(n) v = n end
end
setters[2](20)
print(getters[1](), getters[2](), getters[3]())
local function make()
  local t = {}
  for _, name in ipairs({"a", "b"}) do t[name] = function() return name end end
  return t
end
local m = make() print(m.a(), m.b())
print(debug.upvalueid and type(debug.upvalueid(getters[1], 1)))
