const add = new Function('a', 'b', 'return a + b');
console.log(add(2, 3), add.length, typeof add);
globalThis.x = 'global';
const f = () => { const x = 'local'; return [eval('x'), (0, eval)('x')]; };
console.log(f().join(' '));
try { eval('let ='); } catch (e) { console.log(e.name); }
console.log(eval('1 + 1; 2 * 3'), eval('{ a: 1 }'), eval('({ a: 1 })').a);
