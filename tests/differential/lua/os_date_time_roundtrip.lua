for _, t in ipairs({0, 86399, 951782400, 1700000000, 4102444800, -2208988800}) do
  local d = os.date("!*t", t)
  d.isdst = nil
  io.write(t, "=", os.time(d), " ")
end
print()
print(os.date("!%Y-%m-%d", os.time({year = 2024, month = 12, day = 31 + 1})))
