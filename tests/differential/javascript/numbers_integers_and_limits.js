console.log(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.EPSILON, Number.MAX_VALUE, Number.MIN_VALUE);
console.log(Number.isSafeInteger(2 ** 53), Number.isSafeInteger(2 ** 53 - 1), Number.isInteger(5.0), Number.isInteger(5.5));
console.log(2 ** 53 + 1, 0.1 * 3, 9007199254740993, 1e308 * 10, -1e308 * 10, 0 / 0);
console.log(Number.isNaN('x'), isNaN('x'), Number.isFinite('5'), isFinite('5'));
console.log(5 % 3, -5 % 3, 5 % -3, 5.5 % 2, 2 ** -1, (-8) ** (1 / 3));
console.log(7 / 2 | 0, ~~-7.9, 1 << 31, 1 << 32, -1 >>> 0, -1 >>> 28, 0xff & 0x0f, 5 ^ 3);
