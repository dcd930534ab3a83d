const o = Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true }, hidden: { value: 3, enumerable: false } });
const forIn = [];
for (const k in o) forIn.push(k);
console.log(forIn.join(','), Object.keys(o).join(','), Object.getOwnPropertyNames(o).join(','));
console.log(JSON.stringify(Object.getOwnPropertyDescriptors({ get x() { return 1; } }).x.set), 'inherited' in o, o.propertyIsEnumerable('hidden'));
