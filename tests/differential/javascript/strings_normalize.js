const a = 'caf\u00e9', b = 'cafe\u0301';
console.log(a === b, a.length, b.length);
console.log(a.normalize('NFD') === b, b.normalize('NFC') === a, b.normalize() === a);
console.log('\uFB01'.normalize('NFKC'), 'Å'.normalize('NFD').length);
try { 'x'.normalize('bad'); } catch (e) { console.log(e.name); }
