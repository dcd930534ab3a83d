// every fraction-digit count the methods accept (0..100), on values with ties, negatives, tiny and
// huge exponents; each line is a hash of all 101 strings (the output limit is 32 KiB) and samples
const fnv = (s) => { let h = 0x811c9dc5; for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0; return h.toString(16); };
const xs = [2.5, -0.125, 1 / 3, 123.456, 1e-300, -5e-324, 6.02214076e23, 0.1, 1.005, 4503599627370497.5, 0.000001, 987654321987.5];
for (const x of xs) {
  const fixed = [], exp = [], prec = [];
  for (let f = 0; f <= 100; f++) {
    if (Math.abs(x) < 1e21) fixed.push(x.toFixed(f));
    exp.push(x.toExponential(f));
    if (f >= 1) prec.push(x.toPrecision(f));
  }
  const sample = (a) => [a[0], a[1], a[20]].join(' ');
  console.log(String(x), 'toFixed', fnv(fixed.join(' ')), fixed.length ? sample(fixed) : '-');
  console.log(String(x), 'toExponential', fnv(exp.join(' ')), sample(exp));
  console.log(String(x), 'toPrecision', fnv(prec.join(' ')), sample(prec));
}
