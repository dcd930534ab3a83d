print(2 + 3 * 4, (2 + 3) * 4, 2 ^ 3 ^ 2, -2 ^ 2, not nil == true, 1 .. 2 .. 3)
print(1 < 2 == true, "a" .. "b" == "ab", 5 - 3 - 1, 2 ^ -1, -3 % 5, -(3 % 5))
print(1 and 2, nil and 1, false or "x", nil or false, 1 or error("no"), not 0)
print(7 // 2 * 2, 1 << 2 + 1, 3 & 5 | 2, 5 ~ 3 & 1, "10" + 1 .. "")
