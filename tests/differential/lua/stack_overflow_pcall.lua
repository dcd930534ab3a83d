local function f() return 1 + f() end
local ok, err = pcall(f)
print(ok, err)
local function g(t) return g({t}) + 1 end
print(pcall(g, {}))
print(select(2, pcall(string.rep, "x", -1)))
