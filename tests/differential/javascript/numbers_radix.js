console.log((255).toString(2), (255).toString(16), (-255).toString(36), (0.5).toString(2), (0.1).toString(3).slice(0, 10));
console.log(parseInt('ff', 16), parseInt('0x1A'), parseInt('12px'), parseInt('  -42'), parseInt('z', 36), parseInt('1010', 2), parseInt(''), parseInt('0.9'));
console.log(parseFloat('3.14abc'), parseFloat('.5'), parseFloat('-1e-3x'), parseFloat('Infinity'), parseFloat('e5'));
console.log(Number('0b101'), Number('0o17'), Number(''), Number(' '), Number('1_000'), 1_000_000);
