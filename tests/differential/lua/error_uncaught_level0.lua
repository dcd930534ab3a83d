error("x", 0)
