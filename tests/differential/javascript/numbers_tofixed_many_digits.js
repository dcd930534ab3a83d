const xs = [0.1, 1 / 3, Math.PI, -Math.E, 5e-324, 1e-10, 123456789.125, 2 ** 52 + 0.5, 0.30000000000000004];
for (const x of xs) for (const f of [15, 17, 20, 25, 50, 100]) console.log(f, x.toFixed(f));
try { (1).toFixed(101); } catch (e) { console.log(e.name); }
try { (1).toFixed(-1); } catch (e) { console.log(e.name); }
