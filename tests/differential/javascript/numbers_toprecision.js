const xs = [0, 1, 25, -25, 2.5, 1.25, 123.456, 0.000123456, 1e21, 1e-7, 123456789, 99.95, 0.5, 1.5, 1234.5, 5e-324, -1.7976931348623157e308];
for (const x of xs) console.log(String(x), x.toPrecision(), [1, 2, 3, 4, 7, 21].map((p) => x.toPrecision(p)).join(' '));
console.log((-0).toPrecision(3), NaN.toPrecision(3), (-Infinity).toPrecision(2));
try { (1).toPrecision(0); } catch (e) { console.log(e.name); }
