s = "naïve café ☕"
b = s.encode("utf-8")
print(b, len(s), len(b))
print(b.decode("utf-8") == s, s.encode("latin-1", errors="replace"), s.encode("ascii", errors="ignore"))
print(s.encode("ascii", errors="xmlcharrefreplace"), s.encode("ascii", errors="backslashreplace"))
print(b"\xff\xfe".decode("utf-8", errors="replace"), bytes([72, 105]).decode())
print("abc".encode("utf-16-le"), "€".encode("utf-16"), "€".encode("utf-32-be"))
try:
    b"\xc3\x28".decode("utf-8")
except UnicodeDecodeError as e:
    print(e)
