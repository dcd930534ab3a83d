words = ["éclair", "apple", "Zebra", "zoo", "Äpfel", "ant", "naïve", "Ω"]
print(sorted(words))
print(sorted(words, key=str.casefold))
import unicodedata
def strip_accents(s):
    return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")
print(sorted(words, key=lambda w: strip_accents(w).lower()))
print([strip_accents(w) for w in words])
