print(string.format("%a %a %a %a", 1.0, 0.5, -2.0, 0.1))
print(string.format("%A %.3a %.0a %10.2a|", 255.5, math.pi, 1.5, 1.0))
print(string.format("%a %a", 1e308, 2^-1022))
print(string.format("%a", 0.0), string.format("%a", 1/0))
