local s = ("ab"):rep(100000)
print(#s, s:sub(-4), #s:upper(), select(2, s:gsub("a", "")))
local parts = {} for i = 1, 10000 do parts[i] = i end
local joined = table.concat(parts, ",")
print(#joined, joined:sub(1, 20), joined:sub(-10))
