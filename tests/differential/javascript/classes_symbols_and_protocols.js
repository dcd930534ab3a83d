class Range {
  constructor(a, b) { this.a = a; this.b = b; }
  *[Symbol.iterator]() { for (let i = this.a; i < this.b; i++) yield i; }
  get [Symbol.toStringTag]() { return 'Range'; }
  [Symbol.toPrimitive](hint) { return hint === 'number' ? this.b - this.a : `${this.a}..${this.b}`; }
}
const r = new Range(2, 6);
console.log([...r].join(','), Object.prototype.toString.call(r), +r, `${r}`, Math.max(...r));
const s1 = Symbol('tag'), s2 = Symbol.for('shared');
console.log(s1.toString(), s1.description, Symbol.for('shared') === s2, Symbol.keyFor(s2), typeof s1);
