for _, a in ipairs({7, -7}) do
  for _, b in ipairs({3, -3}) do
    print(a, b, a // b, a % b, a / b, math.fmod(a, b))
  end
end
print(7.5 // 2, -7.5 // 2, 7.5 % 2, -7.5 % 2, 7.5 % -2)
print(math.mininteger % -1, math.mininteger // -1, math.fmod(math.mininteger, -1))
print(pcall(math.fmod, 1, 0), math.fmod(1, 0.0) ~= math.fmod(1, 0.0), math.fmod(-6, 4))
print(3 % -math.huge, -3 % math.huge, 0.0 % 1, -0.0 // 1)
