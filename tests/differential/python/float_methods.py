print((0.5).as_integer_ratio(), (0.1).as_integer_ratio(), (3.0).is_integer(), (3.5).is_integer())
print((1.5).hex(), float.fromhex("0x1.8p1"), (0.1).hex())
import math
print(math.floor(-2.5), math.ceil(-2.5), math.trunc(-2.5), math.floor(2.5), int(-2.9))
print(math.isclose(0.1 + 0.2, 0.3), math.isnan(float("nan")), math.isinf(1e400), math.isfinite(1.0))
print(math.fsum([0.1] * 10), sum([0.1] * 10), math.prod([1, 2, 3, 4]))
print(round(0.125, 2), round(0.375, 2), round(1e15 + 0.5), round(-0.5))
