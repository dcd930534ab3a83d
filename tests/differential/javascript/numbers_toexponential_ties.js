// (25).toExponential(0) is "3e+1": a tie rounds up, not to even
for (const x of [15, 25, 35, 45, 125, 225, 0.5, 1.5, 2.5, 0.125, 0.375, 1.25, 2.25, 6.25e-3, 1024.5, 8.5e10, 7.5e22, -25, -0.125]) {
  console.log(String(x), x.toExponential(0), x.toExponential(1), x.toExponential(2));
}
