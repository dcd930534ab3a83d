local nan = 0/0
print(nan ~= nan, nan == nan, tostring(nan) == tostring(nan))
print(string.format("%f", -(0/0)), math.abs(0/0) ~= math.abs(0/0))
