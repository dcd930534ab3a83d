const xs = [0, 1, 25, 35, -25, 2.5, 0.00015, 123456, 1e21, 1.5e-7, -1.5e300, 5e-324, 1.7976931348623157e308, 0.5, 9.5, 99.5, 995, 12345.6789];
for (const x of xs) console.log(String(x), x.toExponential(), [0, 1, 2, 3, 6].map((f) => x.toExponential(f)).join(' '));
console.log((-0).toExponential(2), NaN.toExponential(2), Infinity.toExponential());
try { (1).toExponential(101); } catch (e) { console.log(e.name); }
