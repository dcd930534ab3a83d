const counters = [];
for (let i = 0; i < 3; i++) counters.push(() => i);
var fns = [];
for (var j = 0; j < 3; j++) fns.push(() => j);
console.log(counters.map((f) => f()).join(','), fns.map((f) => f()).join(','));
const makeAcc = (start) => { let total = start; return { add: (n) => (total += n), get: () => total }; };
const acc = makeAcc(10);
acc.add(5); acc.add(-2);
console.log(acc.get());
console.log(typeof hoistedVar, hoistedFn());
var hoistedVar = 1;
function hoistedFn() { return 'fn hoisted'; }
try { tdz; let tdz = 1; } catch (e) { console.log(e.name); }
