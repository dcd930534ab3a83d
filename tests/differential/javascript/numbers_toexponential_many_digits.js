const xs = [1 / 3, Math.PI, 5e-324, 2 ** -1074, 2 ** 1023, 0.1, 1e-300, 123.456e200];
for (const x of xs) for (const f of [10, 16, 20, 40, 60, 100]) console.log(f, x.toExponential(f));
