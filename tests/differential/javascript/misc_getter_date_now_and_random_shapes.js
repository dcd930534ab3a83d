const t = Date.now();
console.log(typeof t, Number.isInteger(t), t > 1.6e12);
const r = Math.random();
console.log(r >= 0 && r < 1, typeof performance === 'undefined' || typeof performance.now() === 'number');
const ids = new Set(Array.from({ length: 100 }, () => Math.random()));
console.log(ids.size > 95);
