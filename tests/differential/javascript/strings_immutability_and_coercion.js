const s = 'abc';
s[0] = 'z';
console.log(s, String(123), String(true), String(null), String([1, [2, 3]]), String({}));
console.log('5' * '2', '5' + 2, '5' - 2, +'  12  ', +'', +'1e3', +'0x1f', +'abc');
console.log(typeof new String('x'), new String('x') == 'x', new String('x') === 'x');
console.log([1, 2] + [3], {} + 'x', 1 + null, 1 + undefined);
