// expected-difference: V8 and QuickJS word engine errors differently (V8: "Cannot read properties of undefined (reading 'x')")
const o = undefined;
console.log(o.x);
