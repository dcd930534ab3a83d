console.log(/^.$/.test('😀'), /^.$/u.test('😀'), '😀'.match(/./gu).length, '😀'.match(/./g).length);
console.log(/\p{L}+/u.exec('123 héllo!')[0], /\p{Script=Greek}/u.test('α'), /\p{Lu}/u.test('a'));
console.log('Ünïcödé'.replace(/[^\x00-\x7f]/g, '?'), /[\u{1F600}-\u{1F64F}]/u.test('😃'));
console.log(/\w/.test('é'), /\bé/u.test(' é'), JSON.stringify('a😀b'.split(/(?:)/u)));
