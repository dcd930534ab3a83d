// expected-difference: QuickJS (2021-03-27, and QuickJS-ng 0.17.0 still) copies nothing when a string is spread into an object literal
console.log(JSON.stringify({ ...'ab' }), JSON.stringify({ ...'ab', ...[9] }));
