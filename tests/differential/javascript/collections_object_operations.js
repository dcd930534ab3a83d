const o = { b: 2, a: 1, 10: 'ten', 2: 'two', [Symbol('s')]: 'sym' };
console.log(Object.keys(o).join(','), JSON.stringify(Object.values(o)), JSON.stringify(Object.entries(o)));
console.log(JSON.stringify(Object.assign({}, o, { c: 3 })), JSON.stringify({ ...o, a: 9 }));
const { a, ...rest } = o;
console.log(a, JSON.stringify(rest), 'a' in o, o.hasOwnProperty('b'), Object.getOwnPropertySymbols(o).length);
const frozen = Object.freeze({ x: 1 });
frozen.x = 2;
console.log(frozen.x, Object.isFrozen(frozen), Object.isSealed(Object.seal({})));
