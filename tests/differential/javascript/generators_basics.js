function* count(n) { for (let i = 0; i < n; i++) { const got = yield i; if (got) console.log('got', got); } return 'done'; }
const g = count(3);
console.log(JSON.stringify(g.next()), JSON.stringify(g.next('hello')), JSON.stringify(g.next()), JSON.stringify(g.next()), JSON.stringify(g.next()));
console.log([...count(4)].join(','), Array.from(count(2)).length);
const g2 = count(5);
g2.next();
console.log(JSON.stringify(g2.return('early')), JSON.stringify(g2.next()));
