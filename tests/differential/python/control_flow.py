for n in range(2, 20):
    for d in range(2, n):
        if n % d == 0:
            break
    else:
        print(n, end=" ")
print()
i = 0
while True:
    i += 1
    if i % 2: continue
    if i > 8: break
    print(i, end=";")
print()
def classify(v):
    match v:
        case 0: return "zero"
        case int(n) if n < 0: return "negative"
        case [x, y]: return f"pair {x},{y}"
        case {"kind": k}: return f"kind {k}"
        case str() as s: return "str " + s
        case _: return "other"
print([classify(v) for v in [0, -3, [1, 2], {"kind": "a"}, "s", 4.5]])
x = 5
print("big" if x > 3 else "small", (lambda: "lam")(), x if x else 0)
