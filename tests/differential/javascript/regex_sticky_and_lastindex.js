const re = /\d+/y;
const s = '12 34';
console.log(re.exec(s)?.[0], re.lastIndex, re.exec(s), re.lastIndex);
re.lastIndex = 3;
console.log(re.exec(s)[0]);
const g = /o/g;
console.log(g.test('foo'), g.lastIndex, g.test('foo'), g.lastIndex, g.test('foo'), g.lastIndex);
