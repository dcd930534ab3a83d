# expected-difference: the sandbox's Ruby uses WASI's libm (musl), whose exp is not correctly rounded: Math.exp(1) is 2.7182818284590455, one unit in the last place above glibc's 2.718281828459045
p Math.exp(1)
