local n = 0
for i = math.maxinteger - 2, math.maxinteger do n = n + 1 end print(n)
n = 0
for i = math.mininteger, math.mininteger + 2 do n = n + 1 end print(n)
for i = 1, 3 do io.write(i, " ") end print()
for i = 1.0, 2 do io.write(i, " ") end print()
for i = 1, 2, 0.5 do io.write(i, " ") end print()
for i = 3, 1, -1 do io.write(i, " ") end print()
for i = 1, 0 do print("never") end
for i = 0.1, 0.35, 0.1 do io.write(i, " ") end print()
for i = math.maxinteger - 1, math.huge do io.write(i, " ") if i < 0 then break end end print()
print(pcall(function() for i = 1, 10, 0 do end end))
