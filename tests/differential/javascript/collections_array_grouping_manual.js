const items = [{ t: 'fruit', n: 'apple' }, { t: 'veg', n: 'kale' }, { t: 'fruit', n: 'fig' }, { t: 'nut', n: 'pecan' }];
const groups = items.reduce((acc, it) => { (acc[it.t] ||= []).push(it.n); return acc; }, {});
console.log(JSON.stringify(groups));
const counts = new Map();
for (const w of 'the cat and the hat and the bat'.split(' ')) counts.set(w, (counts.get(w) ?? 0) + 1);
console.log(JSON.stringify([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))));
