const value = await Promise.resolve(21);
console.log(value * 2);
const sleep0 = () => new Promise((res) => Promise.resolve().then(res));
await sleep0();
console.log('after await');
