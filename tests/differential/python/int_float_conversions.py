print(int(3.99), int(-3.99), int("-0"), float(7), str(1e22), str(1e21), str(1e16), str(123456789012345678.0))
print(repr(1/3), repr(2.0 ** 53), repr(2.0 ** 53 + 1), 2 ** 53 + 1, float(2 ** 53 + 1))
print(0.1 * 3, 1.1 * 1.1, 100 * 1.1, 3 * 0.1 == 0.3, round(0.1 * 3, 15))
print(int(1e20), float("0x1p-2".replace("0x1p-2", "0.25")), 10 ** 16 + 1.0, 1e308 * 10, -1e308 * 10)
try:
    int(float("inf"))
except OverflowError as e:
    print("OverflowError:", e)
try:
    int(float("nan"))
except ValueError as e:
    print("ValueError:", e)
