print(select("#"), select("#", nil, nil), select(-2, "a", "b", "c"))
print(pcall(select, -5, 1), pcall(select, "x"))
local function pass(...) return ... end
print(pass(1, nil, 3))
print((pass(1, 2)))
print(table.unpack({1, 2, 3}, 2), table.unpack({}, 1, 0))
