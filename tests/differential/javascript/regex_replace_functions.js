const camel = (s) => s.replace(/[-_](\w)/g, (_, c) => c.toUpperCase());
const snake = (s) => s.replace(/[A-Z]/g, (c, offset) => (offset ? '_' : '') + c.toLowerCase());
console.log(camel('hello-world_foo'), snake('HelloWorldFoo'));
console.log('a.b.c'.split('.').join('\\.'), 'x+y'.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
console.log('aaa'.replace(/a*?/g, '-'), 'abc'.replace(/(?:)/g, '.'), 'xyz'.replace(/$/, '!'));
console.log('John Smith'.replace(/(?<f>\w+) (?<l>\w+)/, (...args) => { const g = args[args.length - 1]; return `${g.l} ${g.f}`; }));
