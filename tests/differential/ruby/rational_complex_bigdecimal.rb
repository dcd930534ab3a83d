a = Rational(3, 4)
b = Rational("2/6")
p a, b, a + b, a * b, a / b, a - b, a**2, a.to_f, 0.75r, 3r / 4
p Rational(355, 113).round(2), 1.5.rationalize(Rational(1, 100)), Complex(1, 2) * Complex(3, -1), Complex(3, 4).abs
p 1/3r + 1/6r, Rational(1, 3).floor(1), (1..4).sum { |i| Rational(1, i) }
