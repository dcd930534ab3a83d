import re
for pat in ["(", "[a-", "a{2,1}", "(?P<n>a)(?P<n>b)", "*a", r"\k"]:
    try:
        re.compile(pat)
    except re.error as e:
        print(repr(pat), "->", e.msg, e.pos, "|", e)
