// the names of engine errors agree even where the wording differs
const cases = [() => null.x, () => undefinedVariable, () => (1).toFixed(200), () => new Array(-1), () => decodeURIComponent('%'), () => Symbol() + '', () => { 'use strict'; Object.freeze([]).push(1); }, () => BigInt('x'), () => JSON.parse('{')];
for (const c of cases) { try { c(); console.log('no error'); } catch (e) { console.log(e.constructor.name, e.name); } }
