// Times a workload in the same prebuilt .wasm under node's V8 and node:wasi (the fallback
// baseline of run.sh when no native interpreter is installed, and a V8-versus-wasm2c comparison).
//   node node_wasi.mjs ruby|perl MODULE.wasm WORKLOAD_FILE
// Prints "<ms>" of the best of 3 evaluations (module compilation and interpreter start-up are
// not counted).
import { WASI } from 'node:wasi';
import fs from 'node:fs';

const [lang, wasmPath, workloadPath] = process.argv.slice(2);
const code = fs.readFileSync(workloadPath, 'utf8');
const module = await WebAssembly.compile(fs.readFileSync(wasmPath));
const wasi = new WASI({ version: 'preview1', args: [lang], env: {}, preopens: { '/dev': '/dev' },
                        returnOnExit: true });
const imports = { wasi_snapshot_preview1: wasi.wasiImport };
const handles = [null];
if (lang === 'ruby') {
  imports.canonical_abi = {
    'resource_new_rb-abi-value': (rep) => handles.push(rep) - 1,
    'resource_get_rb-abi-value': (h) => handles[h],
    'resource_drop_js-abi-value': () => {},
  };
  imports['rb-js-abi-host'] = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module === 'rb-js-abi-host') {
      imports[imp.module][imp.name] = () => { throw new Error('JavaScript bridge not available'); };
    }
  }
} else {
  imports.env = { call_host_function: () => { throw new Error('no host functions'); } };
}
const instance = new WebAssembly.Instance(module, imports);
wasi.initialize(instance);
const x = instance.exports;
const bytes = (p, n) => new Uint8Array(x.memory.buffer, p, n);
const exportNamed = (prefix) =>
  WebAssembly.Module.exports(module).find((e) => e.name.startsWith(prefix)).name;

let evaluate;
if (lang === 'ruby') {
  const put = (s) => {
    const b = Buffer.from(s);
    const p = x.cabi_realloc(0, 0, 1, b.length || 1);
    bytes(p, b.length).set(b);
    return [p, b.length];
  };
  const args = ['ruby.wasm', '-EUTF-8', '-e_=0'];
  const list = x.cabi_realloc(0, 0, 4, args.length * 8);
  args.forEach((a, i) => {
    const [p, n] = put(a + '\0');
    const view = new DataView(x.memory.buffer);
    view.setUint32(list + 8 * i, p, true);
    view.setUint32(list + 8 * i + 4, n, true);
  });
  x[exportNamed('ruby-init:')](list, args.length);
  const evalProtect = x[exportNamed('rb-eval-string-protect')];
  evaluate = () => {
    const [p, n] = put(code + '\nnil');
    const ret = evalProtect(p, n);
    const state = new DataView(x.memory.buffer).getInt32(ret + 4, true);
    if (state !== 0) throw new Error('ruby eval failed with state ' + state);
  };
} else {
  if (x.zeroperl_init() !== 0) throw new Error('zeroperl_init failed');
  evaluate = () => {
    const b = Buffer.from(code + '\0');
    const p = x.malloc(b.length);
    bytes(p, b.length).set(b);
    if (x.zeroperl_eval(p, 1, 0, 0) !== 0) throw new Error('perl eval failed');
    x.free(p);
  };
}
let best = Infinity;
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  evaluate();
  best = Math.min(best, performance.now() - t);
}
console.log(best.toFixed(1));
