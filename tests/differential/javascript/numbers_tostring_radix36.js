// expected-difference: toString(36) of some doubles: QuickJS-ng writes the shortest digits that read back to the same double (1e21 is 5v1j4f4ds7a000), V8 other digits (5v1j4f4ds7c000, which reads back to another double)
const xs = [0.1 + 0.2, 1e21, 1.7976931348623157e308, 123456789012345680000, 1 / 3, 0.1, 255.5, 2 ** 60];
for (const x of xs) {
  const s = x.toString(36);
  console.log(s.length > 24 ? `${s.slice(0, 24)}... (${s.length} digits)` : s, s.includes('.') || parseInt(s, 36) === x);
}
