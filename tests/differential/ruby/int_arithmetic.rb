p 7 / 2, -7 / 2, 7 % 3, -7 % 3, 7.remainder(-3), 7.divmod(2), (-7).divmod(2), 7.fdiv(2)
p 2**100, 2**-1, 10.pow(20, 7), 3.14.round, 2.5.round, 3.5.round, (-2.5).round, 1234.round(-2), 2.675.round(2)
p 2.5.round(half: :even), 2.5.round(half: :down), 10.gcd(4), 10.lcm(4), 255.digits, 10.bit_length
p Integer.sqrt(99), 100.0.floor, -2.5.ceil, -2.5.floor, -2.5.truncate, 3.7.to_i, 17.0 / 0, -1 / 0.0
p 1_000_000, 0o17, 0xFF, 0b1010, 1e3, 5.between?(1, 10), 5.clamp(1, 3), 0.zero?, 3.odd?, 4.even?, 3.pred
