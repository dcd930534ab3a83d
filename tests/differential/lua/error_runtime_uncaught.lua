local t = {}
print(t.x.y)
