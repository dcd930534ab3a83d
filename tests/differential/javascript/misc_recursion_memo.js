const memo = new Map();
const fib = (n) => (n < 2 ? BigInt(n) : memo.get(n) ?? (memo.set(n, fib(n - 1) + fib(n - 2)), memo.get(n)));
console.log(String(fib(90)), String(fib(200)));
const hanoi = (n, a, b, c) => (n === 0 ? 0 : hanoi(n - 1, a, c, b) + 1 + hanoi(n - 1, c, b, a));
console.log(hanoi(16, 'A', 'B', 'C'));
const ack = (m, n) => (m === 0 ? n + 1 : n === 0 ? ack(m - 1, 1) : ack(m - 1, ack(m, n - 1)));
console.log(ack(2, 3));
