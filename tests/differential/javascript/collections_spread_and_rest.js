const max = (...xs) => xs.reduce((a, b) => (a > b ? a : b), -Infinity);
console.log(max(3, 9, 2), max(...[1, 5], ...new Set([7])), max());
console.log(JSON.stringify([...'hi', ...[1, 2]]), JSON.stringify({ ...['a', 'b'], ...[9] }), JSON.stringify({ ...null, ...undefined }));
function count() { return arguments.length; }
console.log(count(...[1, 2, 3], 4), Math.min(...[4, 2, 8]));
