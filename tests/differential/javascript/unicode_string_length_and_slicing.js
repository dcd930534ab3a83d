const s = '👍🏽ok';
console.log(s.length, s.slice(0, 2), s.slice(0, 4), s.substring(4), [...s].length);
const trunc = (str, n) => [...str].slice(0, n).join('');
console.log(trunc('héllo wörld', 5), trunc('😀😃😄', 2));
console.log('abc'.split('').reverse().join(''), [...'aé😀'].reverse().join(''));
