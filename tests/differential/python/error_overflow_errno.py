# expected-difference: a math range error carries the C library's errno, and WASI's libc numbers and words it differently (68 'Result not representable' against glibc's 34 'Numerical result out of range')
try:
    2 ** 10000.0
except OverflowError as e:
    print("OverflowError:", e)
