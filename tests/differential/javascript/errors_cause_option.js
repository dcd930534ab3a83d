// expected-difference: the `cause` option of Error (ES2022) is newer than QuickJS 2021-03-27
const e = new Error('outer', { cause: new Error('inner') });
console.log(e.message, e.cause && e.cause.message, 'cause' in e);
