const xs = [1, 2, 3, 4, 5, 6];
console.log(JSON.stringify(xs.map((x) => x * x)), JSON.stringify(xs.filter((x) => x % 2)), xs.reduce((s, x) => s + x, 0));
console.log(xs.reduceRight((s, x) => s + x, ''), xs.find((x) => x > 3), xs.findIndex((x) => x > 3), xs.some((x) => x > 5), xs.every((x) => x > 0));
console.log(JSON.stringify(xs.flatMap((x) => [x, -x]).slice(0, 4)), JSON.stringify(Array.from({ length: 4 }, (_, i) => i * 2)));
console.log(JSON.stringify(Array.of(7, 8)), Array.isArray([]), JSON.stringify([...xs.entries()].slice(0, 2)), JSON.stringify([...xs.keys()]));
try { [].reduce((a, b) => a + b); } catch (e) { console.log(e.name); }
