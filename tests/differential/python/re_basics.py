import re
s = "Contact: alice@example.com, bob.smith@mail.org; phone 555-1234 or 555-9876."
print(re.findall(r"[\w.]+@[\w.]+\w", s))
print(re.findall(r"(\d{3})-(\d{4})", s))
m = re.search(r"(?P<user>\w+)@(?P<host>[\w.]+)", s)
print(m.group(0), m.group("user"), m["host"], m.span(), m.start(2), m.groupdict())
print(re.match(r"\w+", s).group(), re.match(r"\d", s), re.fullmatch(r"\d+", "12345") is not None)
print(re.sub(r"\d", "#", s), re.sub(r"(\w+)@", r"<\1>@", s, count=1))
print(re.split(r"[,;]\s*", s), re.split(r"(\s)", "a b", maxsplit=1))
