const csv = 'name,age\nalice,30\nbob,25\ncarol,35';
const [header, ...rows] = csv.split('\n');
const keys = header.split(',');
const records = rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [keys[i], isNaN(v) ? v : Number(v)])));
console.log(JSON.stringify(records));
console.log(records.filter((r) => r.age > 28).map((r) => r.name.toUpperCase()).join(';'));
