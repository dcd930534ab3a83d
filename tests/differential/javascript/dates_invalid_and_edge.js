console.log(new Date('x').getTime(), isNaN(new Date(undefined)), new Date(null).getTime());
console.log(new Date(2024, 0).getTime() === new Date('2024-01-01T00:00:00').getTime());
console.log(Date.UTC(275760, 8, 13), Date.UTC(275760, 8, 14));
console.log(new Date(Date.UTC(1, 0, 1)).toISOString(), new Date(Date.UTC(0, 0, 1)).toISOString());
const d = new Date(0);
d.setUTCFullYear(10000);
console.log(d.toISOString());
