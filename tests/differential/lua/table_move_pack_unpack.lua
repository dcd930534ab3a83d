local a = {1, 2, 3, 4, 5}
table.move(a, 2, 4, 1) print(table.concat(a, " "))
local b = table.move({1, 2, 3}, 1, 3, 3, {9, 9}) print(table.concat(b, " "))
table.move(a, 1, 3, 3) print(table.concat(a, " "))
local p = table.pack(1, nil, 3) print(p.n, p[1], p[2], p[3])
print(table.unpack({1, 2, 3}, -1, 1))
print(select("#", table.unpack({}, 1, 3)), select(-1, 1, 2, 3), select(2, "a", "b", "c"))
print(pcall(select, 0, 1), pcall(table.move, {}, 1, math.maxinteger, 2))
