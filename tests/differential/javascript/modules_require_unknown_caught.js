// A module that is not there: an Error with node's code and a message that starts as node's.
for (const id of ['lodash', 'express/lib/router', './local-module', '../up.js', '/abs/mod.js']) {
  try {
    require(id);
    console.log(id, 'loaded');
  } catch (e) {
    console.log(id, e instanceof Error, e.name, e.code, e.message.startsWith(`Cannot find module '${id}'`));
  }
}
try {
  require('node:no-such-builtin');
} catch (e) {
  console.log(e.name, e.code);
}
for (const id of [42, undefined, '']) {
  try {
    require(id);
  } catch (e) {
    console.log(e.name, e.code);
  }
}
