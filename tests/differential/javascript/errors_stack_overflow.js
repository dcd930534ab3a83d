const f = (n) => f(n + 1) + 1;
f(0);
