const [x, , y = 10, ...zs] = [1, 2, undefined, 4, 5];
console.log(x, y, JSON.stringify(zs));
const { p: { q = 'dq' } = {}, r: renamed = 'dr' } = { p: {} };
console.log(q, renamed);
let m = 1, n = 2;
[m, n] = [n, m];
console.log(m, n);
const f = ({ a, b = a * 2 } = {}, [c] = [3]) => `${a}-${b}-${c}`;
console.log(f({ a: 1 }), f(), f({ a: 2, b: 0 }, [9]));
try { const { k } = null; } catch (e) { console.log(e.name); }
