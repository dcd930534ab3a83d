// Import declarations, top-level await and import() together (an ES module in node).
import path from 'node:path';
import { basename } from 'path';

const name = await Promise.resolve(basename('/srv/data/report.csv', '.csv'));
console.log(name, path.extname('/srv/data/report.csv'));
const { join, default: viaDefault } = await import('node:path');
console.log(join('a', '..', 'b'), viaDefault === path);
const fsModule = await import('fs');
console.log(typeof fsModule.readFileSync, typeof fsModule.default.existsSync);
try {
  await import('left-pad');
} catch (e) {
  console.log(e.name, e.code);
}
