// expected-difference: V8 names the zone "(Coordinated Universal Time)", QuickJS prints no name
const d = new Date(Date.UTC(2001, 8, 9, 1, 46, 40));
console.log(d.toString());
console.log(d.toDateString(), d.getTimezoneOffset());
