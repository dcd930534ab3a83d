const results = [];
for (let i = 0; i < 3; i++) results.push(await Promise.resolve(i * 2));
console.log(results.join(','));
async function* gen() { yield 'x'; yield 'y'; }
for await (const v of gen()) console.log('got', v);
for (var k of ['p', 'q']) await null;
console.log(k);
let total = 0;
for (const p of [1, 2, 3].map(async (n) => n * n)) total += await p;
console.log(total);
