const f = (n) => f(n + 1) + 1;
let caught = false;
try { f(0); } catch (e) { caught = e instanceof Error; }
console.log('caught', caught);
