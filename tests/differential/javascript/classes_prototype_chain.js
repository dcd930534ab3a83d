function Shape(name) { this.name = name; }
Shape.prototype.describe = function () { return `shape ${this.name}`; };
function Circle(r) { Shape.call(this, 'circle'); this.r = r; }
Circle.prototype = Object.create(Shape.prototype);
Circle.prototype.constructor = Circle;
const c = new Circle(2);
console.log(c.describe(), c instanceof Shape, Object.getPrototypeOf(c) === Circle.prototype, c.hasOwnProperty('describe'));
const base = { greet() { return 'hi ' + this.n; } };
const child = Object.create(base, { n: { value: 'kid', enumerable: true } });
console.log(child.greet(), JSON.stringify(child), Object.getPrototypeOf(Object.prototype));
