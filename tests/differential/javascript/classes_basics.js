class Point {
  constructor(x, y) { this.x = x; this.y = y; }
  get length() { return Math.hypot(this.x, this.y); }
  set length(v) { const k = v / this.length; this.x *= k; this.y *= k; }
  add(o) { return new Point(this.x + o.x, this.y + o.y); }
  toString() { return `(${this.x}, ${this.y})`; }
  static origin() { return new Point(0, 0); }
}
const p = new Point(3, 4);
console.log(String(p), p.length, `${p.add(new Point(1, 1))}`, String(Point.origin()));
p.length = 10;
console.log(String(p), typeof Point, Object.getOwnPropertyNames(Point.prototype).join(','));
try { Point(1, 2); } catch (e) { console.log(e.name); }
