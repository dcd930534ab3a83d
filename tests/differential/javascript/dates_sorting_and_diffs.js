const ds = ['2024-05-01T00:00:00Z', '2023-12-25T12:00:00Z', '2024-02-29T06:30:00Z'].map((s) => new Date(s));
ds.sort((a, b) => a - b);
console.log(ds.map((d) => d.toISOString().slice(0, 10)).join(' < '));
const ms = ds[2] - ds[0];
const h = Math.floor(ms / 3600000), m = Math.floor(ms / 60000) % 60;
console.log(`${h}h ${m}m`, ms / 86400000);
console.log(ds[0] < ds[1], ds[0].getTime() === new Date(ds[0]).getTime());
