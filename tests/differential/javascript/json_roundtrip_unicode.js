const v = { emoji: '😀', lone: '\ud800', ctrl: '\u0007\u001f', quote: '"\\/', ls: '\u2028\u2029', nul: '\0' };
const s = JSON.stringify(v);
console.log(s);
const back = JSON.parse(s);
console.log(Object.keys(v).every((k) => back[k] === v[k]));
