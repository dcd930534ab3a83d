local t = {5, 2, 8, 1, 9, 3, 7, 4, 6, 0}
table.sort(t) print(table.concat(t, " "))
table.sort(t, function(a, b) return a > b end) print(table.concat(t, " "))
local words = {"banana", "Apple", "cherry", "apple", "Banana"}
table.sort(words) print(table.concat(words, " "))
table.sort(words, function(a, b) return a:lower() < b:lower() or (a:lower() == b:lower() and a < b) end)
print(table.concat(words, " "))
local recs = {{n = "b", a = 2}, {n = "a", a = 2}, {n = "c", a = 1}}
table.sort(recs, function(x, y) if x.a ~= y.a then return x.a < y.a end return x.n < y.n end)
for _, r in ipairs(recs) do io.write(r.n, r.a, " ") end print()
print(pcall(table.sort, {1, "a", 2}))
local mixed = {3, 1.5, 2, -1, 2.5} table.sort(mixed) print(table.concat(mixed, " "))
