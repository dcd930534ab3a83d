print(0/0, -(0/0), math.sqrt(-1))
