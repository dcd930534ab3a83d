function* g() {
  try { yield 1; yield 2; } catch (e) { console.log('caught inside', e.message); yield 'recovered'; } finally { console.log('generator finally'); }
}
const it = g();
console.log(it.next().value, it.throw(new Error('boom')).value, JSON.stringify(it.next()));
const it2 = g();
it2.next();
for (const x of it2) { console.log('loop', x); break; }
try { g().throw(new Error('unstarted')); } catch (e) { console.log('outside', e.message); }
