// Runs an engine's .wasm under node's V8 and node:wasi: the model of upstream sandbox-workers,
// which instantiates the module afresh for every call. Two modes:
//
//   node node_wasi.mjs LANG MODULE.wasm WORKLOAD_FILE
//     times a workload (run.sh's V8-versus-wasm2c comparison): prints "<ms>", the best of 3
//     evaluations in one instance (module compilation and interpreter start-up not counted);
//   node node_wasi.mjs --fresh RUNS LANG MODULE.wasm CODE
//     the upstream model (bench/run's baseline): RUNS calls, each instantiating the compiled
//     module, starting the interpreter and evaluating CODE; prints one JSON line
//     {"p50": ms, "p99": ms, "callsPerSecond": n, "compileMs": ms} (compilation, done once, is
//     not in the per-call figures; run node with --expose-gc: it collects the previous instance
//     between calls, outside the timing, as node otherwise crashes after a few zeroperl ones).
//
// LANG: lua, javascript, python (the embedded ABI of engines/common/sandbox_guest.h: session_init
// then eval), ruby (ruby.wasm's canonical ABI), perl (zeroperl). Python reads its stdlib from
// /stdlib: set SANDBOX_STDLIB_DIR to the build's engines/python/stdlib.
import { WASI } from 'node:wasi';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const argv = process.argv.slice(2);
const fresh = argv[0] === '--fresh';
const runs = fresh ? Number(argv[1]) : 3;
const [lang, wasmPath, codeArg] = fresh ? argv.slice(2) : argv;
const code = fresh ? codeArg : fs.readFileSync(codeArg, 'utf8');

let t = performance.now();
const module = await WebAssembly.compile(fs.readFileSync(wasmPath));
const compileMs = performance.now() - t;
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'node-wasi-'));
const preopens = { '/dev': '/dev', '/workspace': workspace };
if (process.env.SANDBOX_STDLIB_DIR) preopens['/stdlib'] = process.env.SANDBOX_STDLIB_DIR;
const exportNamed = (prefix) =>
  WebAssembly.Module.exports(module).find((e) => e.name.startsWith(prefix)).name;

// A new instance with its interpreter started; returns evaluate(code), which throws on failure.
function start() {
  const wasi = new WASI({ version: 'preview1', args: [lang], env: {}, preopens,
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
  } else if (lang === 'perl') {
    imports.env = { call_host_function: () => { throw new Error('no host functions'); } };
  }
  const instance = new WebAssembly.Instance(module, imports);
  wasi.initialize(instance);
  const x = instance.exports;
  const bytes = (p, n) => new Uint8Array(x.memory.buffer, p, n);

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
    return (src) => {
      const [p, n] = put(src + '\nnil');
      const ret = evalProtect(p, n);
      const state = new DataView(x.memory.buffer).getInt32(ret + 4, true);
      if (state !== 0) throw new Error('ruby eval failed with state ' + state);
    };
  }
  if (lang === 'perl') {
    if (x.zeroperl_init() !== 0) throw new Error('zeroperl_init failed');
    return (src) => {
      const b = Buffer.from(src + '\0');
      const p = x.malloc(b.length);
      bytes(p, b.length).set(b);
      if (x.zeroperl_eval(p, 1, 0, 0) !== 0) throw new Error('perl eval failed');
      x.free(p);
    };
  }
  // The embedded ABI: a request is records `tag:u8 len:u32le bytes`; 'c' carries the code.
  const response = () =>
    Buffer.from(bytes(x.result_ptr(), x.result_len())).toString('utf8');
  if (x.session_init() !== 0) throw new Error('session_init failed: ' + response());
  return (src) => {
    const c = Buffer.from(src);
    const request = Buffer.alloc(5 + c.length);
    request[0] = 'c'.charCodeAt(0);
    request.writeUInt32LE(c.length, 1);
    c.copy(request, 5);
    const p = x.alloc(request.length);
    bytes(p, request.length).set(request);
    const status = x.eval(p, request.length);
    x.dealloc(p);
    if (status !== 0) throw new Error('eval failed (' + status + '): ' + response());
  };
}

if (fresh) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    t = performance.now();
    start()(code);
    times.push(performance.now() - t);
    globalThis.gc?.();  // outside the timing: drop the previous instance before the next
  }
  const total = times.reduce((a, b) => a + b, 0);
  times.sort((a, b) => a - b);
  const pct = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  console.log(JSON.stringify({ p50: pct(0.5), p99: pct(0.99), callsPerSecond: runs / total * 1000,
                               compileMs }));
} else {
  const evaluate = start();
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    t = performance.now();
    evaluate(code);
    best = Math.min(best, performance.now() - t);
  }
  console.log(best.toFixed(1));
}
fs.rmSync(workspace, { recursive: true, force: true });
