import textwrap, pprint
text = "The quick brown fox jumps over the lazy dog. " * 3
print(textwrap.fill(text, width=30))
print(textwrap.wrap("short words only here", 10), textwrap.shorten(text, 40))
print(textwrap.indent("a\nb\n", "> "), textwrap.dedent("    x\n      y\n"))
pprint.pprint({"alpha": list(range(12)), "beta": {"nested": ["x" * 20, "y" * 20, "z" * 20]}, "gamma": None}, width=60)
print(pprint.pformat([1, [2, [3, [4, [5]]]]], depth=3))
