const xs = [1 / 3, Math.PI, 0.1, 2 ** 60, 2 ** -30, 1e100, 5e-324];
for (const x of xs) for (const p of [17, 18, 25, 50, 100]) console.log(p, x.toPrecision(p));
