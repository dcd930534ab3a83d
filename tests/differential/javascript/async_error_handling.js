async function risky(n) { await null; if (n > 2) throw new RangeError(`too big: ${n}`); return n * 10; }
(async () => {
  for (const n of [1, 3]) {
    try { console.log('ok', await risky(n)); } catch (e) { console.log('caught', e.name, e.message); } finally { console.log('done', n); }
  }
  const r = await risky(5).catch((e) => `handled ${e.message}`);
  console.log(r);
  const p = Promise.reject(new Error('later'));
  await p.then(() => 'no', (e) => console.log('second arg handler', e.message));
})();
