const log = 'k1=v1; k2=v2 ;k3 = v3';
const pairs = [...log.matchAll(/(\w+)\s*=\s*(\w+)/g)].map(([, k, v]) => `${k}:${v}`);
console.log(pairs.join(','));
try { 'x'.matchAll(/x/); } catch (e) { console.log(e.name); }
console.log(JSON.stringify('a, b;c  d'.split(/[,;\s]+/)), JSON.stringify('abc'.split(/(b)/)), JSON.stringify('test'.split(/t/)));
