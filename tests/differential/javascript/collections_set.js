const s = new Set([3, 1, 3, 2, 1]);
console.log(s.size, JSON.stringify([...s]), s.has(2), s.add(4) === s, s.delete(1), s.delete(99));
const a = new Set([1, 2, 3, 4]), b = new Set([3, 4, 5]);
console.log(JSON.stringify([...a].filter((x) => b.has(x))), JSON.stringify([...new Set([...a, ...b])]), JSON.stringify([...a].filter((x) => !b.has(x))));
console.log(JSON.stringify([...new Set('mississippi')].join('')));
const seen = new Set();
for (const x of [NaN, NaN, 0, -0]) seen.add(x);
console.log(seen.size);
