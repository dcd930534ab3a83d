const name = 'world', n = 3;
console.log(`hello ${name}, ${n * 2} times`);
console.log(`multi
line`);
const tag = (strings, ...values) => strings.raw.join('|') + ' :: ' + values.join(',');
console.log(tag`a${1}b${2}c\n`);
console.log(String.raw`x\ty${1 + 1}`);
console.log(`${[1, 2, 3]}`, `${{}}`, `${null} ${undefined}`);
