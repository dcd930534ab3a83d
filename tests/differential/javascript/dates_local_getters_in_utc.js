// the sandbox runs in UTC, as the native side does here (TZ=UTC)
const d = new Date(2024, 5, 15, 12, 30);
console.log(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getTimezoneOffset());
console.log(d.toISOString(), d.getTime() === Date.UTC(2024, 5, 15, 12, 30));
console.log(new Date(2024, 0, 32).getDate(), new Date(2024, 1, 0).getDate(), new Date(2023, 1, 29).getMonth());
