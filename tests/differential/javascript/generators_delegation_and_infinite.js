function* inner() { yield 1; yield 2; return 'inner-result'; }
function* outer() { const r = yield* inner(); yield r; yield* [3, 4]; yield* 'ab'; }
console.log([...outer()].join(','));
function* naturals() { let n = 1; while (true) yield n++; }
function* take(it, k) { for (const x of it) { if (k-- <= 0) return; yield x; } }
function* map(it, f) { for (const x of it) yield f(x); }
console.log([...take(map(naturals(), (x) => x * x), 6)].join(' '));
