const m = new Map([[1, 'a'], [2, 'b']]);
const it = m.entries();
console.log(Object.prototype.toString.call(it), JSON.stringify(it.next().value), JSON.stringify([...it]));
const s = new Set(['x', 'y']);
const si = s.values();
s.add('z');
console.log([...si].join(''), Object.prototype.toString.call([][Symbol.iterator]()), Object.prototype.toString.call(''[Symbol.iterator]()));
