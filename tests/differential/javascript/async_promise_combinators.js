const wait = (v, fail) => new Promise((res, rej) => Promise.resolve().then(() => (fail ? rej(new Error(v)) : res(v))));
(async () => {
  console.log(JSON.stringify(await Promise.all([wait(1), 2, wait(3)])));
  try { await Promise.all([wait('x', true), wait(2)]); } catch (e) { console.log('all rejected:', e.message); }
  const settled = await Promise.allSettled([wait('ok'), wait('bad', true)]);
  console.log(settled.map((s) => `${s.status}:${s.value ?? s.reason.message}`).join(' '));
  console.log(await Promise.race([wait('first'), new Promise(() => {})]), await Promise.any([wait('e1', true), wait('win')]));
  try { await Promise.any([wait('e1', true)]); } catch (e) { console.log(e.name, e.errors.length); }
})();
