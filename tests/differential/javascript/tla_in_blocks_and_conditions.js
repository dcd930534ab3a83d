if (await Promise.resolve(true)) {
  const inner = await 'block-scoped';
  var hoisted = inner.toUpperCase();
  console.log(inner);
}
console.log(hoisted, typeof inner);
switch (await 2) { case 2: console.log('two'); break; default: console.log('other'); }
try { await Promise.reject(new Error('caught at top level')); } catch ({ message }) { console.log(message); }
label: { await null; console.log('in label'); break label; }
const x = (await 1) + (await 2), y = await (async () => 3)();
console.log(x, y);
