def f(a, b, *, c):
    return a + b + c
class K:
    def m(self, x): return x
calls = [
    lambda: f(1),
    lambda: f(1, 2, 3),
    lambda: f(1, 2),
    lambda: f(1, 2, c=3, d=4),
    lambda: f(1, 2, c=3, a=9),
    lambda: K().m(),
    lambda: K.m(1, 2, 3),
    lambda: K(1),
    lambda: len(),
    lambda: max(),
    lambda: int("5", base=99),
    lambda: print(sep=5),
]
for c in calls:
    try:
        c()
    except TypeError as e:
        print("TypeError:", e)
    except ValueError as e:
        print("ValueError:", e)
