// differential: workspace
// Import declarations of the built-in modules (node runs this file as an ES module).
import fs from 'node:fs';
import { readFileSync, writeFileSync, mkdirSync as mkdir } from 'fs';
import * as fsNamespace from 'node:fs';
import path, { join } from 'node:path';
import * as pathNamespace from 'path';

console.log(typeof fs.readFileSync, fs.readFileSync === readFileSync, fsNamespace.default === fs,
  fsNamespace.readFileSync === readFileSync, pathNamespace.join === join, path.join === join);

mkdir(join('imports_out', 'nested'), { recursive: true });
writeFileSync(join('imports_out', 'nested', 'data.json'), JSON.stringify({ answer: 42 }));
console.log(JSON.parse(readFileSync(path.join('imports_out', 'nested', 'data.json'), 'utf8')).answer);
console.log(fs.readdirSync('imports_out/nested').join(','), fs.existsSync(path.resolve('imports_out')));
fs.rmSync('imports_out', { recursive: true });
console.log(fs.existsSync('imports_out'));
