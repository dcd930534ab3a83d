console.log(0.1 + 0.2 === 0.3, Math.abs(0.1 + 0.2 - 0.3) < Number.EPSILON);
let sum = 0;
for (let i = 0; i < 10; i++) sum += 0.1;
console.log(sum, sum.toFixed(10), 1.1 * 1.1, 3 * 1.1, 100 * 1.1, 1.15 * 100);
console.log(1e16 + 1, 123456789 * 987654321, 2 ** 64, 2 ** -1074, 2 ** -1075);
console.log(4.35 * 100, 1.005 * 1000, 0.07 * 100, 9.95 * 10);
