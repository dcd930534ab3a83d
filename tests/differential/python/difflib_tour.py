import difflib
a = "the quick brown fox".split()
b = "the quick red fox jumps".split()
print(list(difflib.unified_diff(a, b, lineterm="", fromfile="a", tofile="b")))
print(difflib.SequenceMatcher(None, "abcd", "bcde").ratio(), difflib.get_close_matches("appel", ["ape", "apple", "peach"]))
print(list(difflib.ndiff(["one\n", "two\n"], ["one\n", "too\n"])))
