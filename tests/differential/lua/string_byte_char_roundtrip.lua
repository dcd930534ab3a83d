local all = {} for i = 0, 255 do all[#all + 1] = string.char(i) end
local s = table.concat(all)
print(#s, s:byte(1), s:byte(256), select("#", s:byte(1, -1)))
local sum = 0 for i = 1, #s do sum = sum + s:byte(i) end print(sum)
print(string.format("%q", s:sub(1, 40)))
print(s:upper():sub(98, 123), s:lower():sub(66, 91))
