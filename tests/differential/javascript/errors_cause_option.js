const e = new Error('outer', { cause: new Error('inner') });
console.log(e.message, e.cause && e.cause.message, 'cause' in e);
