// What the Playground's modules take from the browser and node does not have: localStorage and
// sessionStorage (a Storage over a Map, with a browser's quota behaviour: a setItem past the
// quota throws a QuotaExceededError DOMException and changes nothing) and the page's location.
// The unit tests (tests/playground/*_test.mjs) install them before importing a module.

export class MemoryStorage {
  // quota: the most UTF-16 code units of keys plus values, as browsers count them.
  constructor(quota = Infinity) {
    this.quota = quota;
    this.items = new Map();
  }

  get length() {
    return this.items.size;
  }

  key(i) {
    return [...this.items.keys()][i] ?? null;
  }

  getItem(key) {
    const k = String(key);
    return this.items.has(k) ? this.items.get(k) : null;
  }

  setItem(key, value) {
    const k = String(key);
    const v = String(value);
    const used = this.used() - (this.items.has(k) ? k.length + this.items.get(k).length : 0);
    if (used + k.length + v.length > this.quota) {
      throw new DOMException(
        `Setting the value of '${k}' exceeded the quota.`,
        'QuotaExceededError',
      );
    }
    this.items.set(k, v);
  }

  removeItem(key) {
    this.items.delete(String(key));
  }

  clear() {
    this.items.clear();
  }

  used() {
    let n = 0;
    for (const [k, v] of this.items) n += k.length + v.length;
    return n;
  }
}

// Installs a fresh storage as globalThis[name]; `off: true` makes reading it throw, as a browser
// with storage disabled does (a SecurityError on access). Returns the storage (null when off).
export function installStorage(name, { quota = Infinity, off = false } = {}) {
  if (off) {
    Object.defineProperty(globalThis, name, {
      configurable: true,
      get() {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    });
    return null;
  }
  const storage = new MemoryStorage(quota);
  Object.defineProperty(globalThis, name, { configurable: true, value: storage, writable: true });
  return storage;
}

// The page's location: the Playground is served at `origin`/ and calls the API on that origin.
export function installLocation(origin) {
  Object.defineProperty(globalThis, 'location', {
    configurable: true,
    value: new URL('/', origin),
    writable: true,
  });
}
