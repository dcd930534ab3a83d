const temp = {
  _c: 25,
  get f() { return this._c * 9 / 5 + 32; },
  set f(v) { this._c = (v - 32) * 5 / 9; },
};
temp.f = 212;
console.log(temp._c, temp.f);
const o = {};
Object.defineProperty(o, 'ro', { value: 1, enumerable: false });
o.ro = 2;
console.log(o.ro, Object.keys(o).length, JSON.stringify(Object.getOwnPropertyDescriptor(o, 'ro')));
'use strict';
const strictAssign = function () { 'use strict'; o.ro = 3; };
try { strictAssign(); } catch (e) { console.log(e.name); }
