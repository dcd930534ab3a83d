s = "Hello, World"
print(s.upper(), s.lower(), s.swapcase(), s.title(), s.capitalize())
print("hello world foo".title(), "ß".upper(), "İ".lower().encode())
print(s.casefold(), "Straße".casefold())
print(s.startswith("Hell"), s.endswith(("x", "ld")), s.isalpha(), "abc".isalpha())
print("  pad  ".strip() + "|", "xxhixx".strip("x"), "  a ".lstrip() + "|", " a  ".rstrip() + "|")
