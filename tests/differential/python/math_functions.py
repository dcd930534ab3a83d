import math
print(math.pi, math.e, math.tau, math.inf)
print(math.sqrt(2), math.isqrt(99), math.exp(1), math.log(100, 10), math.log2(1024), math.log10(0.001))
print(math.sin(math.pi / 6), math.cos(0), math.atan2(1, 1), math.degrees(math.pi), math.radians(180))
print(math.gcd(48, 18), math.lcm(4, 6), math.comb(10, 3), math.perm(5, 2), math.factorial(10))
print(math.hypot(3, 4), math.dist((0, 0), (3, 4)), math.copysign(1, -0.0), math.fmod(-7, 3))
print(math.frexp(8.0), math.ldexp(0.5, 4), math.modf(3.75))
try:
    math.sqrt(-1)
except ValueError as e:
    print("ValueError:", e)
try:
    math.log(0)
except ValueError as e:
    print("ValueError:", e)
