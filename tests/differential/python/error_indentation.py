def f():
print("bad indent")
