-- expected-difference: %Z of a UTC ("!") date is "UTC" in the sandbox (wasi-libc), "GMT" with glibc
print(os.date("!%Z", 0))
print(os.date("%Z", 0))
