const thenable = { then(res) { res('from thenable'); } };
Promise.resolve(thenable).then((v) => console.log(v));
Promise.resolve(1).then((x) => x + 1).then((x) => { throw new Error(`e${x}`); }).catch((e) => e.message).then((m) => console.log('chain', m)).finally(() => console.log('finally'));
new Promise((res) => { res('first'); res('second'); }).then((v) => console.log('settles once', v));
(async () => console.log('awaited thenable', await { then: (r) => r(42) }))();
