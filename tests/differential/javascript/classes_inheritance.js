class Animal {
  constructor(name) { this.name = name; }
  speak() { return `${this.name} makes a sound`; }
  static create(name) { return new this(name); }
}
class Dog extends Animal {
  speak() { return `${super.speak()} - woof`; }
  get kind() { return 'dog'; }
}
const d = Dog.create('Rex');
console.log(d.speak(), d.kind, d instanceof Animal, d.constructor.name, Object.getPrototypeOf(Dog) === Animal);
class Weird extends Array { sum() { return this.reduce((a, b) => a + b, 0); } }
const w = Weird.from([1, 2, 3]);
console.log(w.sum(), w.length, w instanceof Weird, w.map((x) => x * 2) instanceof Weird);
