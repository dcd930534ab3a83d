const xs = [0, 1, -1, 1.5, 2.5, -2.5, 0.5, 1.005, 1.45, 1.55, 123.456, 0.000001, 1e20, 1e21, -1e21, 999.995, 0.125, 0.375, -0.0001, 10.235, 8.345, 1.0000000000000002];
for (const x of xs) console.log(String(x), [0, 1, 2, 3, 5, 10].map((f) => x.toFixed(f)).join(' '));
console.log((-0).toFixed(2), NaN.toFixed(2), Infinity.toFixed(1), (-Infinity).toFixed(0));
