a = 2**200 + 12345
b = 3**150
p a, b, a * b % 10**20, a / b, a - b, -a / 7
p (7**77).to_s[0, 20], (7**777).to_s.length, a.to_s(16), a.bit_length, a & 0xFFFF, a >> 190, 1 << 70
p ("9" * 50).to_i + 1, (1..30).reduce(:*), 100.digits.sum, (2**64).class
