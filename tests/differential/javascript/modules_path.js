// require('path') and require('node:path'): POSIX path operations, as node computes them.
const path = require('path');
console.log(path === require('node:path'), path.sep, path.delimiter, path.posix === path);

const samples = ['', '.', '..', '/', '//', 'a/b/c', '/a/b/c/', 'a//b/../c/./d', '../x/../../y', '/..',
  '/../a', 'file.txt', '.bashrc', 'archive.tar.gz', 'dir/', 'a.b/c', '/x/y.z/', 'name.', '...'];
for (const p of samples) {
  console.log(JSON.stringify(p), path.normalize(p), path.dirname(p), JSON.stringify(path.basename(p)),
    JSON.stringify(path.extname(p)), path.isAbsolute(p), JSON.stringify(path.parse(p)));
}

console.log(path.join('a', 'b', '../c', './d'), path.join('/a/', '/b'), path.join(), path.join('', ''),
  path.join('a', '..', '..'), path.join('/', '..', 'x/'));
console.log(path.basename('/a/b/file.txt', '.txt'), path.basename('file.txt', 'file.txt'),
  path.basename('/a/b/', 'b'), path.basename('x.js/', '.js'));
console.log(path.resolve('/a/b', './c', '../d'), path.resolve('/a', '/b', 'c'), path.resolve('/a/b/', ''));
console.log(path.resolve('x') === path.join(process.cwd(), 'x'), path.resolve() === process.cwd(),
  path.resolve('..') === path.dirname(process.cwd()));
console.log(path.relative('/data/orandea/test/aaa', '/data/orandea/impl/bbb'),
  JSON.stringify(path.relative('/a/b', '/a/b/')), path.relative('/a', '/a/b/c'), path.relative('/a/b/c', '/'),
  path.relative('x/y', 'x/z') === path.relative(path.resolve('x/y'), path.resolve('x/z')));
console.log(path.format({ dir: '/home/user', base: 'file.txt' }), path.format({ root: '/', name: 'f', ext: 'js' }),
  path.format({ root: '/', dir: '/', base: 'x' }), path.format(path.parse('/a/b.c')));

for (const attempt of [() => path.join('a', 42), () => path.resolve('/a', null), () => path.basename('a', 1),
  () => path.relative('a', {}), () => path.format('x'), () => path.dirname(undefined)]) {
  try {
    attempt();
    console.log('no error');
  } catch (e) {
    console.log(e.name, e.code, e.message);
  }
}
