var declaredVar = 1;
let declaredLet = 2;
console.log(typeof globalThis, typeof globalThis.Math, typeof globalThis.JSON.parse);
console.log(typeof globalThis.Array.prototype.map, Object.getPrototypeOf(globalThis) !== null);
console.log(typeof parseInt, parseInt === Number.parseInt, isNaN === Number.isNaN);
