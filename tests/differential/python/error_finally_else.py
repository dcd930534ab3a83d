def f(x):
    try:
        r = 10 / x
    except ZeroDivisionError:
        print("div by zero")
        return "handled"
    else:
        print("no error", r)
        return "ok"
    finally:
        print("finally", x)
print(f(2), f(0))
def g():
    try:
        return "try"
    finally:
        print("cleanup")
print(g())
for i in range(3):
    try:
        if i == 1:
            continue
        print("body", i)
    finally:
        print("fin", i)
