// a bounded backtracking case both engines finish quickly
const re = /^(a+)+$/;
console.log(re.test('a'.repeat(20)), re.test('a'.repeat(16) + 'b'));
console.log(/(x+x+)+y/.test('x'.repeat(14)));
