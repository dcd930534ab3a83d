// The JavaScript side of the QuickJS guest driver (driver.c embeds this file).
//
// Evaluated once per session: the expression below is a function that driver.c calls with the
// native functions it implements in C. It installs the globals guest code sees (console, fs,
// process) and returns the hooks driver.c uses around every evaluation. The hooks are held by
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
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferCtor = ArrayBuffer;
  const isView = ArrayBuffer.isView;

  // SharedArrayBuffer/Atomics would let guest code block the only thread; there is none to
  // share memory with anyway.
  delete globalThis.SharedArrayBuffer;
  delete globalThis.Atomics;

  const bigintReplacer = (key, value) => (typeof value === 'bigint' ? `${value}n` : value);

  // ---- ES2022 built-ins newer than QuickJS 2021-03-27 that node 20 has (docs/languages.md) ----
  // Defined like built-ins: non-enumerable methods, only where missing.
  const defineMethods = (target, methods) => {
    for (const name of Object.keys(methods)) {
      if (!(name in target)) defineProperty(target, name, { value: methods[name], writable: true, configurable: true });
    }
  };
  const toIntegerOrInfinity = (v) => {
    const n = Number(v);
    return n !== n ? 0 : Math.trunc(n);
  };
  const requireObject = (v, what) => {
    if (v === null || v === undefined) throw new TypeError(`${what} called on null or undefined`);
    return Object(v);
  };
  const relativeIndex = (length, index) => {
    const k = toIntegerOrInfinity(index);
    return k < 0 ? length + k : k;
  };
  const arrayLength = (o) => Math.min(Math.max(toIntegerOrInfinity(o.length), 0), Number.MAX_SAFE_INTEGER);
  const findLastOf = (o, predicate, thisArg, what) => {
    if (typeof predicate !== 'function') throw new TypeError(`${what}: predicate is not a function`);
    for (let i = arrayLength(o) - 1; i >= 0; i--) if (predicate.call(thisArg, o[i], i, o)) return i;
    return -1;
  };
  const arrayLikeMethods = {
    at(index) {
      const o = requireObject(this, 'at');
      const k = relativeIndex(arrayLength(o), index);
      return k < 0 || k >= arrayLength(o) ? undefined : o[k];
    },
    findLast(predicate) { // length 1, as the built-in: thisArg is the optional second argument
      const o = requireObject(this, 'findLast');
      const i = findLastOf(o, predicate, arguments[1], 'findLast');
      return i < 0 ? undefined : o[i];
    },
    findLastIndex(predicate) {
      return findLastOf(requireObject(this, 'findLastIndex'), predicate, arguments[1], 'findLastIndex');
    },
  };
  defineMethods(Array.prototype, arrayLikeMethods);
  defineMethods(Object.getPrototypeOf(Int8Array.prototype), arrayLikeMethods);
  defineMethods(String.prototype, {
    at(index) {
      const s = toString(requireObject(this, 'String.prototype.at'));
      const k = relativeIndex(s.length, index);
      return k < 0 || k >= s.length ? undefined : s[k];
    },
  });
  const hasOwnProperty = Object.prototype.hasOwnProperty;
  defineMethods(Object, {
    hasOwn(object, key) {
      return hasOwnProperty.call(requireObject(object, 'Object.hasOwn'), key);
    },
  });

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
  defineProperty(globalThis, 'fs', { value: freeze(fs), writable: true, configurable: true });

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

  return { mapError, begin, finish, setEnv };
})
