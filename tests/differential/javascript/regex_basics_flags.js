const re = /(\d{3})-(\d{4})/g;
const s = 'call 555-1234 or 555-9876';
let m;
while ((m = re.exec(s)) !== null) console.log(m[0], m[1], m.index, re.lastIndex);
console.log(/abc/i.test('ABC'), /^b/m.test('a\nb'), /a.c/s.test('a\nc'), /a.c/.test('a\nc'));
console.log(re.source, re.flags, re.global, /x/gimsuy.flags, String(/a\/b/));
