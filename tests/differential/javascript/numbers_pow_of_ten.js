// expected-difference: V8's Math.pow is not correctly rounded (10 ** -5 !== 1e-5 in node); the sandbox's (musl) is
// Math.pow and ** with exact operands, and 10^k from literals
const out = [];
for (let k = -10; k <= 22; k++) out.push(`${k}:${10 ** k === Number(`1e${k}`)}`);
console.log(out.join(' '));
console.log(2 ** 10, 2 ** -3, 3 ** 4, 1.5 ** 2, (-2) ** 3, 2 ** 0.5 === Math.SQRT2, 0 ** 0, NaN ** 0, 1 ** Infinity);
