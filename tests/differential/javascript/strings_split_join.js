console.log(JSON.stringify('a,b,,c'.split(',')));
console.log(JSON.stringify('a,b,c'.split(',', 2)));
console.log(JSON.stringify('one  two three'.split(/\s+/)));
console.log(JSON.stringify('a1b2c3'.split(/(\d)/)));
console.log(JSON.stringify(''.split(',')), JSON.stringify(''.split('')));
console.log(['x', null, undefined, 1, [2, 3]].join('-'));
