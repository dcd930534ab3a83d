# CPU workload (the same program runs natively and in the engine): recursive calls.
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
fib(27)
