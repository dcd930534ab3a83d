print(5 & 3, 5 | 3, 5 ~ 3, ~5, 1 << 62, 1 << 63, 1 << 64, -1 >> 1, 1 >> -1)
print(2.0 & 3, "3" | 0, pcall(function() return 1.5 & 1 end))
print(pcall(function() return "a" | 1 end))
print(0xff ~ 0x0f, math.mininteger >> 63, 1 << -1, 0x7fffffffffffffff + 1)
