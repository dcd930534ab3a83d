// Importing a name a built-in module does not export is a SyntaxError before any code runs.
console.log('never printed');
import { readFileSync, doesNotExist } from 'fs';
console.log(typeof readFileSync, doesNotExist);
