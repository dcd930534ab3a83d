console.log('before');
console.error('to stderr');
throw new TypeError('bad input: 42');
