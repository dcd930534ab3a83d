a = 2 ** 200 + 12345
b = 3 ** 150
print(a, b)
print(a * b % (10 ** 20), a // b, a - b, -a // 7)
print(str(7 ** 77)[:20], len(str(7 ** 777)))
print(hex(a), a.bit_length(), a & 0xFFFF, a >> 190, 1 << 70)
print(int("9" * 50) + 1)
