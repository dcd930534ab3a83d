x = 3
assert x > 0, "x must be positive"
assert x < 2, f"x too large: {x}"
