const people = [['ann', 30], ['bob', 25], ['cid', 30], ['dan', 25], ['eve', 35], ['fay', 30]];
people.sort((a, b) => a[1] - b[1]);
console.log(people.map((p) => p.join(':')).join(' '));
const nums = Array.from({ length: 50 }, (_, i) => (i * 37) % 50);
nums.sort((a, b) => b - a);
console.log(nums.slice(0, 10).join(','));
console.log(JSON.stringify([undefined, 3, null, 1, undefined].sort()));
console.log(JSON.stringify(['b', undefined, 'a'].sort((x, y) => (x < y ? -1 : 1))));
