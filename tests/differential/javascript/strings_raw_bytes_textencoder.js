const chars = 'héllo €';
const bytes = [];
for (const c of unescape(encodeURIComponent(chars))) bytes.push(c.charCodeAt(0));
console.log(bytes.join(' '));
console.log(decodeURIComponent(escape(String.fromCharCode(...bytes))));
