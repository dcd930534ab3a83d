console.log(Math.max(), Math.min(), Math.max(1, NaN), Math.max(-0, 0) === 0);
console.log(Math.round(2.5), Math.round(-2.5), Math.round(0.49999999999999994), Math.round(-0.5));
console.log(Math.trunc(-4.7), Math.sign(-3), Math.cbrt(27), Math.hypot(3, 4), Math.log2(8), Math.log10(1000), Math.expm1(0), Math.fround(5.5), Math.clz32(1));
console.log(Math.floor(-0.5), Math.ceil(-0.5), Math.abs(-7.25), Math.sqrt(2), Math.pow(2, 0.5) === Math.SQRT2);
console.log(Math.sin(Math.PI / 2), Math.cos(0), Math.atan2(1, 1) * 4, Math.imul(3, 4), Math.imul(0xffffffff, 5));
