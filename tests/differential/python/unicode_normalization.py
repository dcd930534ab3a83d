import unicodedata
s1 = "café"
s2 = "cafe\u0301"
print(s1 == s2, len(s1), len(s2))
for form in ("NFC", "NFD", "NFKC", "NFKD"):
    print(form, [hex(ord(c)) for c in unicodedata.normalize(form, s2)])
print(unicodedata.normalize("NFKC", "ﬁ ① ｶ"))
print(unicodedata.name("é"), unicodedata.category("é"), unicodedata.lookup("SNOWMAN"))
print(unicodedata.numeric("½"), unicodedata.decimal("٣"), unicodedata.unidata_version)
