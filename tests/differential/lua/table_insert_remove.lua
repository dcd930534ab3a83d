local t = {1, 2, 3}
table.insert(t, 4) table.insert(t, 1, 0) table.insert(t, 3, 1.5)
print(table.concat(t, " "))
print(table.remove(t), table.remove(t, 1), table.remove(t, 2), table.concat(t, " "))
print(table.remove({}), table.remove({}, 0), #t)
print(pcall(table.insert, t, 10, 1), pcall(table.insert, t, 1, 2, 3))
