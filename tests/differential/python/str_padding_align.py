for w in ["a", "abc", "abcdef"]:
    print("[" + w.ljust(5) + "]", "[" + w.rjust(5, ".") + "]", "[" + w.center(6, "*") + "]")
print("42".zfill(5), "-42".zfill(5), "+7".zfill(4))
print("tab\there".expandtabs(4), "a\tb".expandtabs())
