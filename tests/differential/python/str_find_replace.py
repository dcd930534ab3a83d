s = "the quick brown fox jumps over the lazy dog"
print(s.find("the"), s.rfind("the"), s.find("cat"), s.index("fox"), s.count("o"))
print(s.replace("the", "a"), s.replace("o", "0", 2))
try:
    s.index("cat")
except ValueError as e:
    print("ValueError:", e)
print("abc" in s, "fox" in s, s[4:9], s[-3:], s[::-1][:5], s[::5])
