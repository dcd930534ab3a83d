console.log('a-b-c'.replace('-', '+'), 'a-b-c'.replaceAll('-', '+'));
console.log('a1b22c333'.replace(/\d+/g, (m) => `<${m.length}>`));
console.log('John Smith'.replace(/(\w+)\s(\w+)/, '$2, $1'));
console.log('aaa'.replace(/a/g, '$&$&'), 'x'.replace('x', '$$'));
console.log('2024-01-15'.replace(/(?<y>\d+)-(?<m>\d+)-(?<d>\d+)/, '$<d>/$<m>/$<y>'));
