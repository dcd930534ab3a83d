print(type(os.time()), type(os.clock()), os.getenv("SURELY_NOT_SET_VAR_XYZ"))
print(pcall(os.date, "*t", "abc"))
print(os.rename == nil, os.remove == nil, type(os.tmpname))
print(os.time({year = 2020, month = 1, day = 1, hour = 12}) - os.time({year = 2020, month = 1, day = 1, hour = 0}))
