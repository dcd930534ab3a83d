const d = new Date(Date.UTC(2024, 0, 31, 13, 45, 30, 123));
console.log(d.toISOString(), d.getTime(), d.valueOf() === +d);
console.log(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCDay(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
console.log(new Date(0).toISOString(), new Date(-1).toISOString(), new Date(8.64e15).toISOString());
console.log(String(new Date(8.64e15 + 1).getTime()), new Date(NaN).getTime());
console.log(Date.UTC(2024, 1, 30), Date.UTC(1970), Date.UTC(99, 0), Date.UTC(-1, 0));
