const o = {};
o.z = 1; o['1'] = 2; o.a = 3; o['-1'] = 4; o['01'] = 5; o[0] = 6; o['4294967295'] = 7; o['4294967294'] = 8;
console.log(Object.keys(o).join(' '));
console.log(JSON.stringify(o));
for (const k in { b: 1, a: 2, 1: 3 }) console.log(k);
