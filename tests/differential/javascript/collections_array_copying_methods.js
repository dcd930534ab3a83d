const a = [3, 1, 2];
console.log(JSON.stringify(a.toSorted()), JSON.stringify(a.toReversed()), JSON.stringify(a.with(0, 9)), JSON.stringify(a));
console.log(a.findLast((x) => x > 1), a.findLastIndex((x) => x > 5));
