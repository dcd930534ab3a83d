// path on many generated inputs: a count and a hash of every output (the sandbox's output is
// capped, so the outputs are not printed one by one), and the first few as they are.
const path = require('node:path');
const atoms = ['', '.', '..', '/', '//', 'a', 'b.js', '.rc', 'x.tar.gz', 'name.', '...'];
const inputs = new Set();
for (const x of atoms) {
  for (const y of atoms) {
    for (const z of ['', '/', '..']) {
      inputs.add(x + y + z);
      inputs.add(`${x}/${y}/${z}`);
      inputs.add(`/${x}//${y}${z}`);
    }
  }
}
const list = [...inputs].sort();
let hash = 0x811c9dc5;
let count = 0;
const shown = [];
const record = (text) => {
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  hash = Math.imul(hash ^ 10, 0x01000193) >>> 0;
  if (count++ % 499 === 0) shown.push(text);
};
for (const p of list) {
  record([path.normalize(p), path.dirname(p), path.basename(p), path.extname(p), path.isAbsolute(p),
    path.basename(p, '.js'), path.basename(p, 'c'), JSON.stringify(path.parse(p)),
    path.format(path.parse(p))].join('|'));
}
for (let i = 0; i < list.length; i += 13) {
  for (let j = 0; j < list.length; j += 17) {
    record(`${path.join(list[i], list[j])}|${path.resolve('/r', list[i], list[j])}|${path.relative(`/r/${list[i]}`, `/r/${list[j]}`)}`);
  }
}
console.log(list.length, count, hash.toString(16));
for (const s of shown) console.log(s);
