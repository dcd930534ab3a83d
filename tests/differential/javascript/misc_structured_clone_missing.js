// expected-difference: structuredClone is a web API node has and QuickJS does not
const copy = structuredClone({ a: [1, { b: 2 }] });
console.log(JSON.stringify(copy));
