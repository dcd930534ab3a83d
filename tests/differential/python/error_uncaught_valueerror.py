def parse(s):
    return int(s)
print("before")
parse("12a")
print("never")
