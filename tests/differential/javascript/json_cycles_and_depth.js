const a = { name: 'a' };
a.self = a;
try { JSON.stringify(a); } catch (e) { console.log(e.name); }
let deep = [];
for (let i = 0; i < 500; i++) deep = [deep];
console.log(JSON.stringify(deep).length, JSON.parse(JSON.stringify(deep)).length);
const seen = new WeakSet();
console.log(JSON.stringify(a, (k, v) => { if (typeof v === 'object' && v) { if (seen.has(v)) return '[cycle]'; seen.add(v); } return v; }));
