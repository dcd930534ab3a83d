const café = 1, π = Math.PI, \u0061bc = 'escaped', $ = 1, _ = 2, ünï = 'x';
console.log(café, π.toFixed(4), abc, $ + _, ünï);
const o = { 'clé': 1, '日本': 2 };
console.log(JSON.stringify(Object.keys(o)), o.clé, o['日本']);
