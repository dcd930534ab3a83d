// expected-difference: a thrown non-error is reported by the sandbox as name "Error" with the value as message; node prints "Uncaught 42"
throw 42;
