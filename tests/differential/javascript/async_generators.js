async function* ticker(n) { for (let i = 0; i < n; i++) { await null; yield i * i; } }
(async () => {
  const out = [];
  for await (const v of ticker(5)) out.push(v);
  console.log(out.join(','));
  for await (const v of [Promise.resolve('p1'), 'plain', Promise.resolve('p2')]) console.log(v);
  const it = ticker(2);
  console.log(JSON.stringify(await it.next()), JSON.stringify(await it.return('stop')), JSON.stringify(await it.next()));
})();
