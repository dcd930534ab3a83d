for (const src of ['(', '[a-', 'a{2,1}', '(?<n>a)(?<n>b)', '\\']) {
  try { new RegExp(src); console.log('ok', src); } catch (e) { console.log(src, e.name); }
}
try { new RegExp('a', 'gg'); } catch (e) { console.log('flags', e.name); }
console.log(new RegExp('a+', 'g').test('caat'), String(new RegExp('/', 'g')), RegExp('\\d').source);
