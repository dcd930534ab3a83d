const a = [5, 1, 4];
a.push(2, 3);
console.log(JSON.stringify(a), a.length, a.pop(), a.shift(), a.unshift(0), JSON.stringify(a));
console.log(JSON.stringify(a.slice(1, 3)), JSON.stringify(a.splice(1, 2, 'x', 'y', 'z')), JSON.stringify(a));
console.log(a.indexOf('y'), a.includes('z'), a.includes(NaN), [NaN].includes(NaN), [NaN].indexOf(NaN));
console.log(JSON.stringify([3, 1, 10, 2].sort()), JSON.stringify([3, 1, 10, 2].sort((x, y) => x - y)));
console.log(JSON.stringify([1, 2, 3].reverse()), JSON.stringify([1, [2, [3, [4]]]].flat(Infinity)), JSON.stringify(Array(3).fill(0)));
