local s = "Hello, World"
print(#s, s:upper(), s:lower(), s:len())
print(s:sub(1, 5), s:sub(-5), s:sub(8, -1), s:sub(0), s:sub(100), s:sub(-100, 2))
print(s:rep(2, "|"), ("ab"):rep(3), ("x"):rep(0), ("x"):rep(-1))
print(s:reverse(), s:byte(1), s:byte(-1), s:byte(1, 3))
print(string.char(72, 105, 33))
