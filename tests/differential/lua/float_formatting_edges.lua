for _, v in ipairs({1e14, 1e15, 1e16, 1e17, 123456789.125, 0.1 + 0.7, 1 / 7, 2^-10, 2^70, -1e-300}) do
  io.write(tostring(v), " ", string.format("%.17g", v), " ", string.format("%g", v), "\n")
end
print(100 / 3, 2^0.5, 10 / 2, 3.0, -3.0, 1e-5, 123e-7)
