local set = {}
for _, w in ipairs({"pear", "apple", "fig", "apple", "kiwi", "fig"}) do set[w] = (set[w] or 0) + 1 end
local keys = {} for k in pairs(set) do keys[#keys + 1] = k end table.sort(keys)
for _, k in ipairs(keys) do io.write(k, "=", set[k], " ") end print()
