const Serializable = (B) => class extends B { serialize() { return JSON.stringify(this); } };
const Named = (B) => class extends B { constructor(...a) { super(...a); this.named = true; } };
class Base { constructor(v) { this.v = v; } }
class Thing extends Serializable(Named(Base)) {}
console.log(new Thing(7).serialize());
const obj = { v: 1, regular() { return this && this.v; }, arrow: () => typeof this };
const { regular } = obj;
console.log(obj.regular(), regular(), obj.arrow(), regular.call({ v: 9 }), regular.bind({ v: 8 })());
