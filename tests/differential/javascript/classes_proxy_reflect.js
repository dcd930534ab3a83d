const target = { a: 1 };
const log = [];
const p = new Proxy(target, {
  get(t, k, r) { log.push(`get ${String(k)}`); return Reflect.get(t, k, r) ?? 'default'; },
  set(t, k, v) { log.push(`set ${k}=${v}`); return Reflect.set(t, k, v * 2); },
  has(t, k) { return k.startsWith('x') || k in t; },
});
p.b = 5;
console.log(p.a, p.b, p.zz, 'xyz' in p, 'q' in p);
console.log(log.join('; '));
console.log(JSON.stringify(Reflect.ownKeys({ b: 1, [Symbol('s')]: 2 }).map(String)), Reflect.has({ x: 1 }, 'x'), Reflect.apply(Math.max, null, [1, 3, 2]));
