import itertools as it
print(list(it.islice(it.count(10, 3), 5)), list(it.islice(it.cycle("ab"), 5)), list(it.repeat("x", 3)))
print(list(it.accumulate([1, 2, 3, 4])), list(it.accumulate([1, 2, 3, 4], max)), list(it.chain("ab", [1, 2])))
print(list(it.combinations("abcd", 2)), list(it.permutations([1, 2, 3], 2)))
print(list(it.product("ab", repeat=2)), list(it.combinations_with_replacement("ab", 2)))
print([(k, list(g)) for k, g in it.groupby("aaabbcaa")])
print(list(it.zip_longest("abc", [1], fillvalue="-")), list(it.takewhile(lambda x: x < 3, [1, 2, 5, 1])))
print(list(it.dropwhile(lambda x: x < 3, [1, 2, 5, 1])), list(it.compress("abcdef", [1, 0, 1, 0, 1, 1])))
print(list(it.starmap(pow, [(2, 3), (3, 2)])), list(it.pairwise("abcd")), list(it.filterfalse(str.isdigit, "a1b2")))
