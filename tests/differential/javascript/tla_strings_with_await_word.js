const text = 'await is a keyword; "await" in a string';
const re = /await/g;
console.log(text.match(re).length, await Promise.resolve('real await'));
const o = { await: 1 };
console.log(o.await, `${await 'in template'}`);
