const s = 'Hello, World';
console.log(s.length, s.toUpperCase(), s.toLowerCase());
console.log(s.indexOf('o'), s.lastIndexOf('o'), s.indexOf('z'));
console.log(s.slice(7), s.slice(-5, -1), s.substring(5, 0), s.substr(1, 3));
console.log(s.startsWith('Hell'), s.endsWith('ld'), s.includes(', '));
console.log(JSON.stringify(s.split(', ')), JSON.stringify(s.split('')).length);
console.log(s.charAt(4), s.charCodeAt(0), s.codePointAt(1), s[100] === undefined);
