from datetime import date
d = date(2024, 1, 31)
print(d)
print(d.replace(month=2))
