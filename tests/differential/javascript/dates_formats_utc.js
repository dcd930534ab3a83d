const d = new Date(Date.UTC(2001, 8, 9, 1, 46, 40));
console.log(d.toISOString());
console.log(d.toUTCString());
console.log(JSON.stringify(d), d.toJSON(), JSON.stringify({ when: d }));
console.log(new Date(NaN).toJSON(), String(new Date(NaN)));
try { new Date(NaN).toISOString(); } catch (e) { console.log(e.name); }
