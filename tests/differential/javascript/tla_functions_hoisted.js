console.log(early());
function early() { return 'hoisted function works'; }
await null;
class Later {}
console.log(typeof Later, new Later() instanceof Later);
async function af() { return 'async fn'; }
function* gf() { yield 'gen fn'; }
console.log(await af(), gf().next().value);
