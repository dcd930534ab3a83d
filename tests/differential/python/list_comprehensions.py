print([x * x for x in range(10) if x % 2 == 0])
print([(x, y) for x in range(3) for y in "ab"])
print({x: x ** 2 for x in range(5)}, {c for c in "mississippi"} == set("misp"))
print(list(x for x in range(20) if x % 7 == 3), sum(x for x in range(100)))
matrix = [[1, 2, 3], [4, 5, 6]]
print([list(row) for row in zip(*matrix)], [v for row in matrix for v in row])
print([[0] * 3 for _ in range(2)], [i if i % 2 else -i for i in range(6)])
