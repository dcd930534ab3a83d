console.log(JSON.stringify({ a: 1, b: 'x', c: true, d: null, e: undefined, f: () => 1, g: Symbol('s') }));
console.log(JSON.stringify([undefined, () => 1, Symbol('s'), NaN, Infinity, -0]));
console.log(JSON.stringify('he said "hi"\n'), JSON.stringify(new Date(0)), JSON.stringify(Object.create(null)));
console.log(JSON.stringify(undefined), JSON.stringify(null), JSON.stringify(1e21), JSON.stringify(1e-7), JSON.stringify(new Map([[1, 2]])));
console.log(JSON.stringify({ toJSON() { return { replaced: true }; } }), JSON.stringify([new Number(3), new String('s'), new Boolean(false)]));
