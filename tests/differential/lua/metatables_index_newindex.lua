local defaults = setmetatable({}, {__index = function(t, k) return k .. "?" end})
print(defaults.foo, rawget(defaults, "foo"))
local log = {}
local proxy = setmetatable({}, {__newindex = function(t, k, v) log[#log + 1] = k rawset(t, k, v * 2) end})
proxy.a = 1 proxy.a = 5 proxy.b = 2
print(proxy.a, proxy.b, table.concat(log, ","))
local base = {greet = function(self) return "hi " .. self.name end}
local obj = setmetatable({name = "lua"}, {__index = base})
print(obj:greet())
local ro = setmetatable({}, {__index = {x = 1}, __newindex = function() error("read-only", 2) end})
print(ro.x, pcall(function() ro.y = 2 end))
