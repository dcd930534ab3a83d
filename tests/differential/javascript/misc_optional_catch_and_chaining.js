let parsed;
try { parsed = JSON.parse('nope'); } catch { parsed = 'fallback'; }
console.log(parsed);
const cfg = { db: { hosts: ['a', 'b'] }, fn: null };
console.log(cfg.db?.hosts?.[1], cfg.cache?.size, cfg.fn?.(), cfg.db.hosts.at?.(-1) ?? 'no at');
const data = [{ user: { name: 'x' } }, {}];
console.log(data.map((d) => d.user?.name ?? '-').join(','));
