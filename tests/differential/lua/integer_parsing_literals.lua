print(0x10, 0xA.8p1, 0x.1p4, 1e2, 1E-2, .5, 5., 3e0, 0xffffffffffffffff, 0x1p-1074)
print(9223372036854775807, 9223372036854775808, -9223372036854775808, math.type(9223372036854775808))
print(1//1, 1.0//1, 2^2, 8 // 3 * 3 + 8 % 3)
print(load("return 0x"), load("return 1e"), load("return 3..2"))
