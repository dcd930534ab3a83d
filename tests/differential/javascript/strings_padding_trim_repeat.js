console.log('[' + '5'.padStart(3, '0') + ']', '[' + 'ab'.padEnd(6, '-=') + ']');
console.log('[' + '  x y  '.trim() + ']', '[' + '  x'.trimStart() + ']', '[' + 'x  '.trimEnd() + ']');
console.log('ab'.repeat(3), '[' + 'x'.repeat(0) + ']');
try { 'a'.repeat(-1); } catch (e) { console.log(e.name); }
console.log('abc'.padStart(2), 'abc'.padEnd(5, ''));
