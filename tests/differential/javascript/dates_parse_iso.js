const inputs = ['2024-03-05', '2024-03-05T10:20:30Z', '2024-03-05T10:20:30.5Z', '2024-03-05T10:20:30+02:00', '2024-03-05T10:20:30.123-05:30', '+275760-09-13T00:00:00Z', '-000001-01-01T00:00:00Z', 'garbage'];
for (const s of inputs) {
  const t = Date.parse(s);
  console.log(s, Number.isNaN(t) ? 'NaN' : new Date(t).toISOString());
}
