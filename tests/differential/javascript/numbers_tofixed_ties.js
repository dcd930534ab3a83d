// exact binary values that sit on a tie: ECMAScript picks the larger n
const xs = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, 0.25, 0.75, 2.25, -2.25, 0.125, 0.625, 1.0625, 5e-1, 12.5, 1234.5, 4503599627370495.5];
for (const x of xs) console.log(String(x), x.toFixed(0), x.toFixed(1), x.toFixed(2), x.toFixed(3));
