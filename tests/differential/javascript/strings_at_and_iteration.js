const s = 'a😀b';
console.log(s.length, [...s].length, Array.from(s).join('|'));
for (const ch of 'xyz') console.log(ch);
console.log(s.codePointAt(1).toString(16), s.charCodeAt(1).toString(16), s.charCodeAt(2).toString(16));
console.log(s.split('').length);
