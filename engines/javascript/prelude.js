// The JavaScript side of the QuickJS guest driver (driver.c embeds this file).
//
// Evaluated once per session: the expression below is a function that driver.c calls with the
// native functions it implements in C. It installs the globals guest code sees (console, fs,
// process, require, and the import rewrite's __sandbox_import) and returns the hooks driver.c
// uses around every evaluation. The hooks are held by
// the driver only; guest code cannot reach them. Builtins are captured here, so guest code that
// replaces JSON.stringify or String does not change how results and errors are reported.
(function (natives) {
  'use strict';
  const stringify = JSON.stringify;
  const toString = String;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const SyntaxErrorCtor = SyntaxError;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferCtor = ArrayBuffer;
  const isView = ArrayBuffer.isView;

  // SharedArrayBuffer/Atomics would let guest code block the only thread; there is none to
  // share memory with anyway.
  delete globalThis.SharedArrayBuffer;
  delete globalThis.Atomics;

  const bigintReplacer = (key, value) => (typeof value === 'bigint' ? `${value}n` : value);

  const hasOwnProperty = Object.prototype.hasOwnProperty;

  // ---- console: log/info/debug -> stdout, warn/error -> stderr, one line per call ----
  const formatArg = (v) => {
    if (typeof v === 'string') return v;
    if (typeof v === 'bigint') return `${v}n`;
    // As node prints them: JSON.stringify would turn NaN and the infinities into null.
    if (typeof v === 'number') return v === 0 && 1 / v < 0 ? '-0' : toString(v);
    if (v instanceof ErrorCtor) {
      const head = `${v.name}: ${v.message}`;
      return typeof v.stack === 'string' && v.stack !== '' ? `${head}\n${v.stack.replace(/\n$/, '')}` : head;
    }
    try {
      const s = stringify(v, bigintReplacer);
      if (s !== undefined) return s;
    } catch (e) {
      // circular or a throwing toJSON: fall back to String()
    }
    try {
      return toString(v);
    } catch (e) {
      return Object.prototype.toString.call(v);
    }
  };
  const formatLine = (args) => {
    let line = '';
    for (let i = 0; i < args.length; i++) line += (i ? ' ' : '') + formatArg(args[i]);
    if (line.endsWith('\n')) line = line.slice(0, -1);
    return line + '\n';
  };
  const consoleObject = {};
  for (const name of ['log', 'info', 'debug']) consoleObject[name] = (...args) => natives.write(1, formatLine(args));
  for (const name of ['warn', 'error']) consoleObject[name] = (...args) => natives.write(2, formatLine(args));
  consoleObject.trace = (...args) => {
    const stack = new ErrorCtor().stack.split('\n').slice(1).join('\n');
    natives.write(2, formatLine(['Trace:', ...args]) + stack + (stack.endsWith('\n') ? '' : '\n'));
  };
  defineProperty(globalThis, 'console', { value: consoleObject, writable: true, configurable: true });

  // ---- fs: a synchronous subset of Node's fs over the WASI filesystem ----
  const decodeOptions = (options) => (typeof options === 'string' ? { encoding: options } : options || {});
  const isUtf8 = (encoding) => encoding === 'utf8' || encoding === 'utf-8';
  const toBytes = (data) => {
    if (typeof data === 'string') return data;
    if (data instanceof ArrayBufferCtor) return data;
    if (isView(data)) return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
    return toString(data);
  };
  const makeStat = (raw) => freeze({
    size: raw.size,
    mtimeMs: raw.mtimeMs,
    isFile: () => raw.type === 'file',
    isDirectory: () => raw.type === 'directory',
    isSymbolicLink: () => raw.type === 'symlink',
  });
  const joinPath = (dir, name) => (dir.endsWith('/') ? dir + name : `${dir}/${name}`);
  const removeTree = (path) => {
    const st = natives.stat(path);
    if (st.type === 'directory') {
      for (const [name] of natives.readdir(path)) removeTree(joinPath(path, name));
      natives.remove(path, true);
    } else {
      natives.remove(path, false);
    }
  };
  const fs = {
    readFileSync(path, options) {
      const { encoding } = decodeOptions(options);
      if (encoding !== undefined && encoding !== null && !isUtf8(encoding)) {
        throw new TypeError(`fs.readFileSync: unsupported encoding '${encoding}' (use 'utf8' or none)`);
      }
      const data = natives.read(toString(path), isUtf8(encoding));
      return typeof data === 'string' ? data : new Uint8ArrayCtor(data);
    },
    writeFileSync(path, data) {
      natives.write_file(toString(path), toBytes(data), false);
    },
    appendFileSync(path, data) {
      natives.write_file(toString(path), toBytes(data), true);
    },
    readdirSync(path, options) {
      const entries = natives.readdir(toString(path));
      if (!(options && options.withFileTypes)) return entries.map(([name]) => name);
      return entries.map(([name, type]) => freeze({
        name,
        isFile: () => type === 'file',
        isDirectory: () => type === 'directory',
        isSymbolicLink: () => type === 'symlink',
      }));
    },
    mkdirSync(path, options) {
      path = toString(path);
      if (!(options && options.recursive)) {
        natives.mkdir(path);
        return undefined;
      }
      const absolute = path.startsWith('/');
      let current = absolute ? '' : '.';
      for (const part of path.split('/').filter((p) => p !== '')) {
        current = current === '' ? `/${part}` : `${current}/${part}`;
        if (!natives.exists(current)) natives.mkdir(current);
      }
      return undefined;
    },
    rmSync(path, options) {
      path = toString(path);
      const { recursive = false, force = false } = options || {};
      if (!natives.exists(path)) {
        if (force) return;
        natives.stat(path); // throws ENOENT
      }
      if (recursive) return removeTree(path);
      const st = natives.stat(path);
      if (st.type === 'directory') {
        const e = new ErrorCtor(`EISDIR: illegal operation on a directory, rm '${path}'`);
        e.code = 'EISDIR';
        throw e;
      }
      natives.remove(path, false);
    },
    rmdirSync(path) {
      natives.remove(toString(path), true);
    },
    unlinkSync(path) {
      natives.remove(toString(path), false);
    },
    renameSync(from, to) {
      natives.rename(toString(from), toString(to));
    },
    existsSync(path) {
      try {
        return natives.exists(toString(path));
      } catch (e) {
        return false;
      }
    },
    statSync(path) {
      return makeStat(natives.stat(toString(path)));
    },
  };
  const fsModule = freeze(fs);
  defineProperty(globalThis, 'fs', { value: fsModule, writable: true, configurable: true });

  // ---- path: POSIX path operations with the outputs of Node's path module ----
  const describeReceived = (value) => {
    if (value === undefined || value === null) return `Received ${value}`;
    if (typeof value === 'function') return `Received function ${value.name}`;
    if (typeof value === 'object') {
      const ctor = value.constructor;
      return typeof ctor === 'function' && ctor.name ? `Received an instance of ${ctor.name}`
                                                     : 'Received [Object: null prototype]';
    }
    let shown = toString(value);
    if (typeof value === 'bigint') shown = `${value}n`;
    if (typeof value === 'string') shown = `'${value}'`;
    if (shown.length > 28) shown = `${shown.slice(0, 25)}...`;
    return `Received type ${typeof value} (${shown})`;
  };
  const invalidArgType = (name, expected, value) => {
    const e = new TypeErrorCtor(`The "${name}" argument must be of type ${expected}. ${describeReceived(value)}`);
    e.code = 'ERR_INVALID_ARG_TYPE';
    return e;
  };
  const checkString = (value, name) => {
    if (typeof value !== 'string') throw invalidArgType(name, 'string', value);
  };
  // The segments of `p` with '.' and empty ones dropped and '..' applied; a '..' that would go
  // above the start is kept when aboveRoot is true (relative paths), dropped otherwise.
  const normalizeSegments = (p, aboveRoot) => {
    const out = [];
    for (const segment of p.split('/')) {
      if (segment === '' || segment === '.') continue;
      if (segment === '..') {
        if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
        else if (aboveRoot) out.push('..');
      } else {
        out.push(segment);
      }
    }
    return out.join('/');
  };
  const trimTrailingSlashes = (p) => {
    let end = p.length;
    while (end > 1 && p[end - 1] === '/') end--;
    return p.slice(0, end);
  };
  // The last segment of p and where it starts (trailing slashes ignored).
  const lastSegment = (p) => {
    const t = trimTrailingSlashes(p);
    if (t === '/') return { base: '', start: 1, trimmed: t };
    const start = t.lastIndexOf('/') + 1;
    return { base: t.slice(start), start, trimmed: t };
  };
  const extOf = (base) => {
    const dot = base.lastIndexOf('.');
    return dot <= 0 || base === '..' ? '' : base.slice(dot);
  };
  const pathModule = {
    sep: '/',
    delimiter: ':',
    normalize(p) {
      checkString(p, 'path');
      if (p === '') return '.';
      const absolute = p[0] === '/';
      const trailing = p[p.length - 1] === '/';
      let s = normalizeSegments(p, !absolute);
      if (s === '') {
        if (absolute) return '/';
        return trailing ? './' : '.';
      }
      if (trailing) s += '/';
      return absolute ? `/${s}` : s;
    },
    join(...parts) {
      let joined = '';
      for (const part of parts) {
        checkString(part, 'path');
        if (part !== '') joined = joined === '' ? part : `${joined}/${part}`;
      }
      return joined === '' ? '.' : pathModule.normalize(joined);
    },
    resolve(...parts) {
      let resolved = '';
      let absolute = false;
      for (let i = parts.length - 1; i >= -1 && !absolute; i--) {
        const part = i >= 0 ? parts[i] : natives.cwd();
        if (i >= 0) checkString(part, `paths[${i}]`);
        if (part === '') continue;
        resolved = resolved === '' ? part : `${part}/${resolved}`;
        absolute = part[0] === '/';
      }
      const s = normalizeSegments(resolved, !absolute);
      if (absolute) return `/${s}`;
      return s === '' ? '.' : s;
    },
    isAbsolute(p) {
      checkString(p, 'path');
      return p.length > 0 && p[0] === '/';
    },
    dirname(p) {
      checkString(p, 'path');
      if (p === '') return '.';
      const absolute = p[0] === '/';
      // The slash before the last segment, trailing slashes ignored (the first character is
      // the root, never a separator here).
      let end = -1;
      let inTrailingSlashes = true;
      for (let i = p.length - 1; i >= 1; i--) {
        if (p[i] === '/') {
          if (!inTrailingSlashes) {
            end = i;
            break;
          }
        } else {
          inTrailingSlashes = false;
        }
      }
      if (end === -1) return absolute ? '/' : '.';
      if (absolute && end === 1) return '//';
      return p.slice(0, end);
    },
    basename(p, suffix) {
      checkString(p, 'path');
      if (suffix !== undefined) checkString(suffix, 'suffix');
      const withSuffix = suffix !== undefined && suffix !== '' && suffix.length <= p.length;
      if (withSuffix && suffix === p) return '';
      const { base } = lastSegment(p);
      // As Node does: a path of slashes alone is its own basename when a suffix is given.
      if (withSuffix && base === '' && p !== '') return p;
      if (withSuffix && suffix !== base && base.endsWith(suffix)) {
        return base.slice(0, base.length - suffix.length);
      }
      return base;
    },
    extname(p) {
      checkString(p, 'path');
      return extOf(lastSegment(p).base);
    },
    relative(from, to) {
      checkString(from, 'from');
      checkString(to, 'to');
      if (from === to) return '';
      const a = pathModule.resolve(from);
      const b = pathModule.resolve(to);
      if (a === b) return '';
      const as = a === '/' ? [] : a.slice(1).split('/');
      const bs = b === '/' ? [] : b.slice(1).split('/');
      let common = 0;
      while (common < as.length && common < bs.length && as[common] === bs[common]) common++;
      const up = as.slice(common).map(() => '..');
      return up.concat(bs.slice(common)).join('/');
    },
    parse(p) {
      checkString(p, 'path');
      const root = p[0] === '/' ? '/' : '';
      if (p === '' || trimTrailingSlashes(p) === '/') return { root, dir: root, base: '', ext: '', name: '' };
      const { base, start, trimmed } = lastSegment(p);
      let dir = start > 0 ? trimmed.slice(0, start - 1) : '';
      if (dir === '' && root !== '') dir = '/';
      // Node's parse (not its extname) splits a '..' right after the root as '.' + '.'.
      const ext = base === '..' && start === 1 ? '.' : extOf(base);
      return { root, dir, base, ext, name: base.slice(0, base.length - ext.length) };
    },
    format(pathObject) {
      if (pathObject === null || typeof pathObject !== 'object') {
        throw invalidArgType('pathObject', 'object', pathObject);
      }
      const dir = pathObject.dir || pathObject.root;
      const ext = pathObject.ext || '';
      const base = pathObject.base ||
          `${pathObject.name || ''}${ext !== '' && ext[0] !== '.' ? '.' : ''}${ext}`;
      if (!dir) return base;
      return dir === pathObject.root ? `${dir}${base}` : `${dir}/${base}`;
    },
    toNamespacedPath(p) {
      return p;
    },
  };
  pathModule.posix = pathModule;

  // ---- modules: require(), and __sandbox_import for the import rewrite ----
  // docs/languages.md#javascript-built-in-modules
  // The built-in modules are these facades; nothing else can be loaded (no packages, no files).
  const builtinModules = { fs: fsModule, path: freeze(pathModule) };
  const kBuiltinList = 'fs, node:fs, path, node:path';
  // Node's own built-ins the sandbox does not provide, named as such in the error.
  const kNodeOnlyModules = new Set([
    'assert', 'async_hooks', 'buffer', 'child_process', 'cluster', 'console', 'constants', 'crypto',
    'dgram', 'diagnostics_channel', 'dns', 'domain', 'events', 'fs/promises', 'http', 'http2',
    'https', 'inspector', 'module', 'net', 'os', 'path/posix', 'path/win32', 'perf_hooks',
    'process', 'punycode', 'querystring', 'readline', 'repl', 'stream', 'string_decoder', 'sys',
    'timers', 'tls', 'trace_events', 'tty', 'url', 'util', 'v8', 'vm', 'wasi', 'worker_threads',
    'zlib',
  ]);
  const builtinName = (id) => {
    const name = id.startsWith('node:') ? id.slice(5) : id;
    return hasOwnProperty.call(builtinModules, name) ? name : null;
  };
  // The error for a module that is not built in; `code` is Node's for the same failure.
  const moduleNotFound = (id, code) => {
    let reason = 'the sandbox has no package installation';
    if (id.startsWith('node:') || kNodeOnlyModules.has(id)) {
      reason = 'the sandbox does not provide this Node built-in module';
      if (id.startsWith('node:')) code = 'ERR_UNKNOWN_BUILTIN_MODULE';
    } else if (id.startsWith('.') || id.startsWith('/')) {
      reason = 'the sandbox does not load modules from files';
    }
    const e = new ErrorCtor(`Cannot find module '${id}': ${reason}; built-in modules: ${kBuiltinList}`);
    e.code = code;
    return e;
  };
  const requireModule = function require(id) {
    checkString(id, 'id');
    if (id === '') {
      const e = new TypeErrorCtor("The argument 'id' must be a non-empty string. Received ''");
      e.code = 'ERR_INVALID_ARG_VALUE';
      throw e;
    }
    const name = builtinName(id);
    if (name === null) throw moduleNotFound(id, 'MODULE_NOT_FOUND');
    return builtinModules[name];
  };
  defineProperty(globalThis, 'require', { value: requireModule, writable: true, configurable: true });
  // What an import declaration binds: the namespace (every export and `default`, the module
  // itself), or one export of it. The import rewrite (/stdlib/rewrite.js) calls this; it stays
  // in place when guest code replaces `require`.
  const namespaces = {};
  const importModule = (id, exportName) => {
    id = toString(id);
    const name = builtinName(id);
    if (name === null) throw moduleNotFound(id, 'ERR_MODULE_NOT_FOUND');
    if (!hasOwnProperty.call(namespaces, name)) {
      const ns = Object.create(null);
      for (const key of Object.keys(builtinModules[name])) ns[key] = builtinModules[name][key];
      ns.default = builtinModules[name];
      defineProperty(ns, Symbol.toStringTag, { value: 'Module' });
      namespaces[name] = freeze(ns);
    }
    const ns = namespaces[name];
    if (exportName === undefined) return ns;
    if (!hasOwnProperty.call(ns, exportName)) {
      throw new SyntaxErrorCtor(`The requested module '${id}' does not provide an export named '${exportName}'`);
    }
    return ns[exportName];
  };
  defineProperty(globalThis, '__sandbox_import', { value: importModule });
  // The source of the module a dynamic import() of `id` loads (driver.c's module loader): the
  // namespace's exports, re-exported.
  const isIdentifier = (key) => /^[A-Za-z_$][\w$]*$/.test(key);
  const moduleSource = (id) => {
    const ns = importModule(id);
    const names = Object.keys(ns).filter((key) => key !== 'default' && isIdentifier(key));
    // One declarator per name: QuickJS does not export the names of a destructuring pattern.
    const exports = names.length > 0 ? `export const ${names.map((n) => `${n} = ns.${n}`).join(', ')};\n` : '';
    return `const ns = __sandbox_import(${stringify(id)});\nexport default ns.default;\n${exports}`;
  };

  // ---- process: env (frozen, replaced before every evaluation), cwd(), chdir() ----
  const processObject = {
    env: freeze({}),
    cwd: () => natives.cwd(),
    chdir: (path) => natives.chdir(toString(path)),
  };
  defineProperty(globalThis, 'process', { value: processObject, writable: true, configurable: true });

  // ---- result and error mapping (docs/protocol.md#execution-result) ----
  const quote = (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const textEntry = (text) => stringify([{ text }]);
  const mapResult = (v) => {
    if (v === undefined) return '[]';
    if (typeof v === 'string') return textEntry(quote(v));
    if (typeof v === 'bigint') return textEntry(`${v}n`);
    if (typeof v === 'object' && v !== null) {
      const json = stringify(v, bigintReplacer); // throws on cycles: a guest error
      return json === undefined ? textEntry(toString(v)) : `[{"json":${json}}]`;
    }
    return textEntry(toString(v));
  };
  const kMaxStack = 8192;
  const safeString = (v) => {
    try {
      return toString(v);
    } catch (e) {
      return Object.prototype.toString.call(v);
    }
  };
  const mapError = (e) => {
    let name = 'Error';
    let message;
    let stack = '';
    if (e instanceof ErrorCtor || (typeof e === 'object' && e !== null && 'message' in e && 'name' in e)) {
      name = safeString(e.name);
      message = safeString(e.message);
      if (typeof e.stack === 'string') stack = e.stack.slice(0, kMaxStack);
    } else if (typeof e === 'string') {
      message = e;
    } else {
      message = formatArg(e);
    }
    const traceback = stack.split('\n').filter((line) => line.trim() !== '');
    return stringify({ name, message, traceback });
  };

  // A result that is a promise is awaited: begin() subscribes before the job queue is drained,
  // finish() reads the outcome afterwards.
  const begin = (v) => {
    const record = { state: 'fulfilled', value: v };
    if (v instanceof PromiseCtor) {
      record.state = 'pending';
      promiseThen.call(
        v,
        (value) => { record.state = 'fulfilled'; record.value = value; },
        (error) => { record.state = 'rejected'; record.value = error; });
    }
    return record;
  };
  const finish = (record) => {
    if (record.state === 'rejected') throw record.value;
    if (record.state === 'pending') {
      throw new ErrorCtor('the result is a promise that never settled (timers and I/O do not exist in the sandbox)');
    }
    return mapResult(record.value);
  };

  const setEnv = (pairs) => {
    const env = {};
    for (let i = 0; i + 1 < pairs.length; i += 2) env[pairs[i]] = pairs[i + 1];
    processObject.env = freeze(env);
    defineProperty(globalThis, 'process', { value: processObject, writable: true, configurable: true });
  };

  return { mapError, begin, finish, setEnv, moduleSource };
})
