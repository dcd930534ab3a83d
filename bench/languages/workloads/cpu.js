// CPU workload (the same program runs natively and in the engine): recursive calls.
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
fib(27);
