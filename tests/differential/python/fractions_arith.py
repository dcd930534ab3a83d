from fractions import Fraction
a = Fraction(3, 4)
b = Fraction("2/6")
print(a, b, a + b, a * b, a / b, a - b, a ** 2)
print(Fraction(0.75), Fraction("1.25"), Fraction(1, 3).limit_denominator(10))
print(Fraction(355, 113).limit_denominator(100), float(Fraction(22, 7)), Fraction(10, -4))
print(sorted([Fraction(1, 2), Fraction(1, 3), 0.4]), a == 0.75, a.numerator, a.denominator)
