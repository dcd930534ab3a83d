const xs = ['é', 'e', 'z', 'E', '😀', 'ｚ', 'a', 'Z', '\uffff'];
console.log([...xs].sort().join(' '));
console.log(xs.map((x) => x.charCodeAt(0)).sort((a, b) => a - b).join(','));
