const a = [10, 20, 30];
console.log(a.at(0), a.at(-1), a.at(5), 'abc'.at(-1), new Uint8Array([1, 2]).at(-1));
console.log(Object.hasOwn({ x: 1 }, 'x'), Object.hasOwn({}, 'toString'));
