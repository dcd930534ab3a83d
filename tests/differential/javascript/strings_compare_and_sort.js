const words = ['banana', 'Apple', 'cherry', 'apple', 'Banana'];
console.log([...words].sort().join(' '));
console.log([...words].sort((a, b) => a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0).join(' '));
console.log('a' < 'b', 'B' < 'a', 'abc' < 'abd', '10' < '9', 10 < 9);
console.log('abc'.localeCompare('abd') < 0, 'b'.localeCompare('a') > 0, 'a'.localeCompare('a'));
