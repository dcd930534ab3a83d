print("10" + 1, "10" * "2", "3" ^ 2, "0x10" * 1, " 5 " + 0, "1e1" + 0, math.type("10" + 1), math.type("10.0" + 1))
print(pcall(function() return "abc" + 1 end))
print(10 == "10", 1 .. 2, (1 .. 2) + 1, -"2", -"2.0", pcall(function() return -"x" end))
print("10" // "3", "7" % "2", "2" << 1, pcall(function() return "2.5" | 0 end))
