// Generates hash_vectors.json: expected content hashes (docs/protocol.md#workspace-hash) computed
// independently in JavaScript (Math.imul, as the upstream implementation does).
// Run: node make_hash_vectors.mjs > hash_vectors.json
// Each vector names its input by a formula that workspace_hash_test.cc rebuilds byte for byte.
function hash(bytes) {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ bytes.length;
  for (const b of bytes) {
    h1 = Math.imul((h1 ^ b) >>> 0, 0x01000193);
    h2 = Math.imul((h2 + b) >>> 0, 0x85ebca6b);
  }
  const hex = (v) => (v >>> 0).toString(16).padStart(8, "0");
  return hex(h1) + hex(h2);
}

const text = (s) => new TextEncoder().encode(s);
const range = (n, f) => Uint8Array.from({ length: n }, (_, i) => f(i));

// kind "text": `input` is the UTF-8 text; kind "pattern": byte i = (i*mul + (i >> shift) + add) & 255.
const vectors = [
  { name: "empty", kind: "text", input: "", bytes: text("") },
  { name: "a", kind: "text", input: "a", bytes: text("a") },
  { name: "hello world", kind: "text", input: "hello world", bytes: text("hello world") },
  { name: "non-ascii text", kind: "text", input: "h\u00e9llo \u{1F600}\n", bytes: text("h\u00e9llo \u{1F600}\n") },
  { name: "bytes 0..255", kind: "pattern", length: 256, mul: 1, shift: 31, add: 0 },
  { name: "1 MiB pattern", kind: "pattern", length: 1048576, mul: 31, shift: 8, add: 7 },
  { name: "1 MiB + 1 zeros", kind: "pattern", length: 1048577, mul: 0, shift: 31, add: 0 },
];

const out = vectors.map((v) => {
  const bytes =
    v.kind === "text" ? v.bytes : range(v.length, (i) => (i * v.mul + (i >>> v.shift) + v.add) & 255);
  const { bytes: _drop, ...rest } = v;
  return { ...rest, hash: hash(bytes) };
});
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
