-- expected-difference: %a of a subnormal number is normalised by wasi-libc (0x1p-1074), glibc prints 0x0.0000000000001p-1022
print(string.format("%a", 2^-1074), string.format("%a", 2^-1030), string.format("%.2a", 3 * 2^-1070))
