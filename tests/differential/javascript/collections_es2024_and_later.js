// expected-difference: Object.groupBy, Map.groupBy, Promise.withResolvers, Set methods, iterator helpers and Array.fromAsync (ES2024/ES2025) work in the sandbox (QuickJS-ng); node 20 predates them (TypeError)
const people = [{ name: 'ann', age: 31 }, { name: 'bob', age: 25 }, { name: 'cy', age: 31 }];
const byAge = Object.groupBy(people, (p) => p.age);
console.log(JSON.stringify(byAge), Map.groupBy(people, (p) => p.age > 30).get(true).length);
const { promise, resolve } = Promise.withResolvers();
resolve('resolved');
promise.then((v) => console.log(v));
const a = new Set([1, 2, 3]);
const b = new Set([2, 3, 4]);
console.log([...a.union(b)].join(','), [...a.intersection(b)].join(','), [...a.difference(b)].join(','),
  a.isSubsetOf(new Set([1, 2, 3, 4])));
console.log([1, 2, 3, 4, 5].values().filter((x) => x % 2).map((x) => x * 10).toArray().join(','),
  Iterator.from({ next() { return { done: this.n > 2, value: this.n++ }; }, n: 0 }).toArray().join(','));
Array.fromAsync([Promise.resolve(1), 2]).then((xs) => console.log(xs.join(',')));
