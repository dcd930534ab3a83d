local t = {10, 20, 30, x = 1, ["y z"] = 2, [1.0 + 3] = 40}
print(#t, t[4], t.x, t["y z"], t[1.0], rawlen(t), next({}))
t[#t + 1] = 50
print(#t, select("#", table.unpack(t)), table.unpack(t, 2, 3))
local keys = {}
for k in pairs({a = 1, b = 2, c = 3}) do keys[#keys + 1] = k end
table.sort(keys) print(table.concat(keys, ","))
for i, v in ipairs({1, 2, nil, 4}) do io.write(i, "=", v, " ") end print()
print(pcall(function() local x = {} x[nil] = 1 end))
print(pcall(function() local x = {} x[0/0] = 1 end))
local u = {} u[2^53] = "f" print(u[2^53 | 0], u[9007199254740992])
