const html = (strings, ...vals) => strings.reduce((out, s, i) => out + s + (i < vals.length ? String(vals[i]).replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]) : ''), '');
console.log(html`<p>${'a<b & c>d'}</p>`);
const t = (s) => s;
console.log(t`x` === t`x`, Object.isFrozen(t`y`), t`\unicode`.raw[0], t`\unicode`[0]);
