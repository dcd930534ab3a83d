print(math.floor(3.0), math.type(math.floor(3.0)), math.floor(1e100), math.type(math.floor(1e100)))
print(math.ceil(-0.0), math.floor(-1e-300), math.ceil(1e-300), math.floor(2^63), math.ceil(-2^63))
print(pcall(math.floor, "x"), math.floor("3.7"), math.abs("-3"))
print(math.tointeger(3.0), math.tointeger(3.5), math.tointeger("x"), math.tointeger(nil))
