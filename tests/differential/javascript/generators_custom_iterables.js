const fib = { [Symbol.iterator]() { let a = 0, b = 1; return { next: () => { [a, b] = [b, a + b]; return { value: a, done: a > 100 }; }, return() { console.log('closed'); return { done: true }; } }; } };
console.log([...fib].join(' '));
for (const x of fib) if (x > 10) break;
const [p, q] = fib;
console.log(p, q);
const entries = Object.entries({ a: 1, b: 2 })[Symbol.iterator]();
console.log(JSON.stringify(entries.next().value), typeof entries[Symbol.iterator]);
