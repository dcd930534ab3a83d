const a = 2n ** 100n;
console.log(String(a), a.toString(16), (a % 97n).toString(), (-a / 3n).toString());
console.log(typeof 1n, 1n == 1, 1n === 1, 2n > 1, BigInt('123456789012345678901234567890') * 2n + '');
console.log(BigInt.asUintN(8, 257n) + '', BigInt.asIntN(8, 255n) + '', (-7n / 2n) + '', (-7n % 2n) + '');
try { 1n + 1; } catch (e) { console.log(e.name); }
try { BigInt(1.5); } catch (e) { console.log(e.name); }
console.log(JSON.stringify({ v: 10n }, (k, v) => typeof v === 'bigint' ? v.toString() + 'n' : v));
