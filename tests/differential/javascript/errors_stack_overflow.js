// expected-difference: QuickJS reports "InternalError: stack overflow", V8 "RangeError: Maximum call stack size exceeded"
const f = (n) => f(n + 1) + 1;
f(0);
