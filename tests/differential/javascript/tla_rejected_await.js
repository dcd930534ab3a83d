async function load(name) { await null; throw new TypeError(`cannot load ${name}`); }
try { await load('a'); } catch (e) { console.log('caught', e.message); }
await load('b');
console.log('not reached');
