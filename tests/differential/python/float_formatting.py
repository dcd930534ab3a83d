vals = [0.1, 0.2, 0.1 + 0.2, 1/3, 2/3, 1e16, 1e-7, 123456789.123456789, 1.0, -0.0, 5e-324, 1.7976931348623157e308]
for v in vals:
    print(v, repr(v), str(v), "%.17g" % v, format(v, ".3g"))
print(float("inf"), float("-inf"), float("nan"), float("1e500"), -float("inf"))
print(float("  3.5 "), float("1_0.5"), float(".5"), float("-.5e-3"))
