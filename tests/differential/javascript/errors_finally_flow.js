const f = () => { try { return 'try'; } finally { console.log('finally runs'); } };
console.log(f());
const g = () => { try { throw new Error('x'); } catch (e) { return 'caught ' + e.message; } finally { console.log('cleanup'); } };
console.log(g());
// eslint-disable-next-line no-unsafe-finally
const h = () => { try { return 1; } finally { return 2; } };
console.log(h());
outer: for (let i = 0; i < 3; i++) { try { if (i === 1) continue outer; console.log('i', i); } finally { console.log('f', i); } }
