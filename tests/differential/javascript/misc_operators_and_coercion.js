console.log(null ?? 'd', 0 ?? 'd', 0 || 'd', '' && 'x', undefined?.x, ({ a: { b: 1 } })?.a?.b);
let a = null; a ??= 5; let b = 1; b ||= 9; let c = 1; c &&= 7;
console.log(a, b, c, 2 ** 3 ** 2, (-2) ** 2, typeof typeof 1, void 0);
console.log(1 == '1', 0 == '', null == undefined, null == 0, NaN == NaN, [1] == 1, [] == false, '0' == false);
console.log(1 < 2 < 3, 3 > 2 > 1, '2' > '12', 2 > '12', [2] > 1, null >= 0, undefined >= 0);
console.log(typeof null, typeof [], typeof function () {}, typeof Symbol(), typeof 1n, typeof undefined);
