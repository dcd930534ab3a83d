// a deterministic sweep: many values, every method, compared line by line with node
let seed = 12345;
const next = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
let out = [];
for (let i = 0; i < 300; i++) {
  const scale = Number(`1e${Math.floor(next() * 20 - 10)}`);
  const x = (next() - 0.5) * scale;
  const half = Math.round(next() * 2000) / 8; // many exact ties
  out.push([x.toFixed(i % 12), x.toExponential(i % 15), x.toPrecision(1 + (i % 20)),
    half.toFixed(i % 4), half.toExponential(i % 4), half.toPrecision(1 + (i % 5))].join(' '));
}
console.log(out.join('\n'));
