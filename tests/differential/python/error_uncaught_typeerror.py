items = [1, 2, 3]
print(sum(items))
print("total: " + sum(items))
