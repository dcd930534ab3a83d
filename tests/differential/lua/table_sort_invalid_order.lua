local t = {}
for i = 1, 100 do t[i] = (i * 37) % 11 end
print(pcall(table.sort, t, function(a, b) return true end))
