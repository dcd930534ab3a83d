class Counter {
  #count = 0;
  static instances = 0;
  static #secret = 'hidden';
  constructor() { Counter.instances++; }
  #bump() { this.#count++; }
  inc() { this.#bump(); return this; }
  get value() { return this.#count; }
  static reveal() { return Counter.#secret; }
  static isCounter(o) { try { o.#count; return true; } catch { return false; } }
}
const c = new Counter().inc().inc();
new Counter();
console.log(c.value, Counter.instances, Counter.reveal(), Counter.isCounter(c), Counter.isCounter({}));
console.log(Object.keys(c).length, JSON.stringify(c));
