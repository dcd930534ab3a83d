import re
print(re.findall(r"\w+", "naïve café 日本語 x_1"))
print(re.findall(r"\w+", "naïve café", re.ASCII))
print(re.sub(r"\s+", " ", "a\u00a0b\u2003c  d"))
print(re.findall(r"\d", "1٣۳5"), re.findall(r"[^\W\d_]+", "abc123déf_g"))
print(re.match(r"(?i)straße", "STRASSE"), re.match(r"(?i)σ", "Σ") is not None)
