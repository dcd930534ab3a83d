const v = { name: 'x', list: [1, [2, 3], {}], nested: { deep: { deeper: [] } } };
console.log(JSON.stringify(v, null, 2));
console.log(JSON.stringify(v, null, '--'));
console.log(JSON.stringify(v, ['name', 'nested']));
console.log(JSON.stringify(v, (k, val) => (typeof val === 'number' ? val * 10 : val)));
console.log(JSON.stringify([1, 2], null, 20).split('\n')[1].length, JSON.stringify({ a: 1 }, null, ''));
