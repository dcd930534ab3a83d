const s = 'a\u00e9\u4e2d\ud83d\ude00';
console.log(s.length, [...s].length, [...s].map((c) => c.codePointAt(0).toString(16)).join(' '));
console.log(String.fromCodePoint(0x10ffff).length, '\u{1f468}\u200d\u{1f469}'.length);
try { String.fromCodePoint(0x110000); } catch (e) { console.log(e.name); }
console.log('\ud800'.length, encodeURIComponent('\u00e9\u4e2d'), encodeURIComponent('\ud83d\ude00'));
try { encodeURIComponent('\ud800'); } catch (e) { console.log(e.name); }
