data = [3, 8, 1, 9, 4]
if (n := len(data)) > 3:
    print("long", n)
print([y for x in data if (y := x * 2) > 6], y)
import re
if m := re.search(r"(\d+)", "abc 123"):
    print(m.group(1))
total = 0
print([total := total + x for x in data], total)
