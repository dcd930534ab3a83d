outer: for (let i = 0; i < 3; i++) { for (let j = 0; j < 3; j++) { if (j === 1) continue outer; if (i === 2) break outer; console.log(i, j); } }
const kind = (x) => { switch (typeof x) { case 'number': case 'bigint': return 'numeric'; case 'string': return 'text'; default: return 'other'; } };
console.log(kind(1), kind(1n), kind('s'), kind(null));
let k = (1, 2, 3);
console.log(k);
let n = 0;
do { n++; } while (n < 5);
console.log(n);
