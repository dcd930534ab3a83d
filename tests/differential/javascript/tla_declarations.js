const { a, b: [c, ...rest] } = await Promise.resolve({ a: 1, b: [2, 3, 4] });
let counter = await 10;
var legacy = await 'v';
function helper(x) { return x + counter; }
class Box { constructor(v) { this.v = v; } }
counter++;
console.log(a, c, rest.join('+'), counter, legacy, helper(1), new Box(await 5).v);
console.log(typeof helper, typeof Box);
