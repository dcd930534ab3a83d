const m = new Map([['a', 1], ['b', 2]]);
m.set('c', 3).set('a', 10);
console.log(m.size, m.get('a'), m.has('b'), m.delete('b'), m.has('b'), m.get('zz'));
console.log(JSON.stringify([...m]), JSON.stringify([...m.keys()]), JSON.stringify([...m.values()]));
const objKey = {};
m.set(objKey, 'obj').set(NaN, 'nan').set(0, 'zero');
console.log(m.get(objKey), m.get(NaN), m.get(-0), m.size);
m.forEach((v, k) => { if (typeof k === 'string') console.log(k, v); });
console.log(JSON.stringify(Object.fromEntries(new Map([['x', 1], ['y', 2]]))));
