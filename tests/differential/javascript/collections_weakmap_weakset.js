const wm = new WeakMap();
const k1 = {}, k2 = function () {};
wm.set(k1, 'one').set(k2, 'two');
console.log(wm.get(k1), wm.has(k2), wm.delete(k1), wm.has(k1));
try { wm.set('str', 1); } catch (e) { console.log(e.name); }
const ws = new WeakSet([k1]);
console.log(ws.has(k1), ws.has({}));
