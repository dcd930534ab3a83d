const xs = [0.1, 0.2, 0.1 + 0.2, 1 / 3, 2 / 3, 1e21, 1e-7, 123e-20, 5e-324, 1.7976931348623157e308, 2 ** 53, 2 ** 53 + 2, -0, 100, 1e6, 123456789012345680000, 0.000001, 4.35, 0.5e-6];
for (const x of xs) console.log(String(x), x.toString(2).length, x.toString(16).slice(0, 20));
console.log(Object.is(-0, 0), 1 / -0, String(-0), (-0).toString());
