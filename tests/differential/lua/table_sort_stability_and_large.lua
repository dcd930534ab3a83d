local t = {}
for i = 1, 1000 do t[i] = (i * 7919) % 1000 end
table.sort(t)
local ok = true for i = 2, #t do if t[i - 1] > t[i] then ok = false end end
print(ok, t[1], t[500], t[1000])
local s = {} for i = 1, 200 do s[i] = tostring(i) end table.sort(s) print(s[1], s[2], s[3], s[200])
