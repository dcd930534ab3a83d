s = "Ünïcödé 🐍 日本語"
print(len(s), [ord(c) for c in s[:3]], chr(0x1F40D), "\N{GREEK SMALL LETTER ALPHA}")
print(s.upper(), s.lower(), s[::-1])
print(sorted("éaèbz"), max("日本語"), min("Zäa"))
print("\U0001F600".encode("utf-8"), len("\U0001F600".encode("utf-16-le")))
print("groß".upper(), "ǅ".lower(), "ǆ".title(), "ﬀ".upper())
print("Σ".lower(), "ΣΑΣ".lower(), "İstanbul".lower())
