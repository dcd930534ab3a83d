-- expected-difference: table.remove's out-of-bounds error names argument #2 (the position), as Lua 5.4.6 and later do; Debian 12's lua5.4 5.4.4 names #1
local t = {1, 2, 3}
print(pcall(table.remove, t, 10))
print(pcall(table.remove, t, -1))
