local t = {"b", "a", "B", "A", "aa", "", "a b", "10", "9", "_"}
table.sort(t) print(table.concat(t, "|"))
print(("a"):rep(3) < ("a"):rep(4), "abc" <= "abc", "b" > "abc", "\xff" > "a")
