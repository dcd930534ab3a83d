local s = "a.b.c.d"
print(s:find(".", 1, true), s:find("."), s:find("c", -3), s:find("z"))
print(s:find("", 10), s:find("", 8), s:find("", 1), s:find("b", 100))
print(("aaa"):find("a", -10), ("hello"):find("l+"))
