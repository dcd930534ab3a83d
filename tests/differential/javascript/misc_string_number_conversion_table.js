const values = [0, -0, 1, -1.5, 1e21, 1e-7, NaN, Infinity, '', ' ', '0', 'x', true, false, null, undefined, [], [0], [1, 2], {}, '12px'];
for (const v of values) {
  const label = typeof v === 'string' ? JSON.stringify(v) : Array.isArray(v) ? `[${v}]` : typeof v === 'object' && v ? '{}' : Object.is(v, -0) ? '-0' : String(v);
  console.log(label.padEnd(10), String(Number(v)).padEnd(10), String(Boolean(v)).padEnd(6), typeof v === 'symbol' ? '' : String(v).length);
}
