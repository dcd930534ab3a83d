const text = 'The rain in SPAIN stays mainly in the plain';
console.log(JSON.stringify(text.match(/ain/g)));
console.log(JSON.stringify(text.match(/ain/i).index), text.search(/SPAIN/), text.search(/x/));
const m = text.match(/(r)(ain)/);
console.log(m[0], m[1], m[2], m.index, m.input === text);
console.log(JSON.stringify([...text.matchAll(/(\w)ain/g)].map((x) => x[1] + '@' + x.index)));
