s = "abcdefghij"
print(s[2:5], s[:3], s[7:], s[-3:-1], s[::3], s[8:2:-2], s[100:], s[-100:2], repr(s[5:2]))
print(s[len(s) - 1], s.split("e", 1), list(s[:3]), s * 0, repr(""), len(""), "".join([]))
print("%s" % [s], "a" < "b" < "ba", "Z" < "a", "abc" == "ab" + "c", "aB".lower() == "ab")
