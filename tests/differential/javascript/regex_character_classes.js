const s = 'Tel: +1 (555) 010-9999, zip 90210_x';
console.log(JSON.stringify(s.match(/\d/g).join('')), JSON.stringify(s.match(/\D+/g).length), JSON.stringify(s.match(/\w+/g)));
console.log(JSON.stringify(s.match(/[^\s\w]/g).join('')), /^\s*$/.test(' \t\n\u00a0\ufeff'), /[a-z]/i.test('Q'));
console.log(/^[\w.+-]+@[\w-]+\.[\w.]+$/.test('a.b+c@ex-ample.co.uk'), /^[\w.+-]+@[\w-]+\.[\w.]+$/.test('bad@'));
console.log(/\cJ/.test('\n'), /[\b]/.test('\b'), /a{2,3}/.exec('aaaa')[0], /a{2,}?/.exec('aaaa')[0]);
