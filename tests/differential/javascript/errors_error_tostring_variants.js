const e = new Error('msg');
e.name = '';
console.log(String(e));
e.name = 'Custom';
e.message = '';
console.log(String(e));
console.log(Error.prototype.toString.call({ name: 'N', message: 'M' }), Error.prototype.name, Error.prototype.message === '');
console.log(Object.keys(new Error('x')).length, JSON.stringify(new Error('x')), 'message' in new Error());
