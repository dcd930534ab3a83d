// @ts-check
// What the Playground keeps in the browser's local storage: the sandbox id, the last language and
// mode, the editor's code, and each language's REPL log and history. Values are JSON under
// `playground.<name>`; a full or disabled storage only loses them, it never breaks the page.

const PREFIX = 'playground.';

/**
 * The value saved under `name`, or `fallback` when there is none, it is not JSON, or storage is
 * off. The value is not checked: callers check its type.
 * @template T
 * @param {string} name
 * @param {T} fallback
 * @returns {T | unknown}
 */
export function load(name, fallback) {
  try {
    const raw = localStorage.getItem(PREFIX + name);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

/**
 * Saves `value` as JSON under `name`; false when it could not be (quota reached, storage off),
 * and then the value lives until the page is left.
 * @param {string} name
 * @param {unknown} value
 */
export function save(name, value) {
  try {
    localStorage.setItem(PREFIX + name, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
}

/** @param {string} name */
export function remove(name) {
  try {
    localStorage.removeItem(PREFIX + name);
  } catch {
    // As above.
  }
}

/**
 * The list saved under `name`: an array (anything else saved there reads as empty).
 * @param {string} name
 * @returns {unknown[]}
 */
export function loadList(name) {
  const value = load(name, []);
  return Array.isArray(value) ? value : [];
}

/**
 * Saves the last `max` items of `list` under `name`. When the storage is full, the oldest half
 * of what is left is dropped and the save tried again, so a long REPL log loses its oldest
 * entries rather than every new one. Returns how many items were saved: 0 when only an empty
 * list fit, or not even that (storage off: then nothing changed).
 * @param {string} name
 * @param {unknown[]} list
 * @param {number} max
 */
export function saveList(name, list, max) {
  let kept = list.slice(-max);
  for (;;) {
    if (save(name, kept)) return kept.length;
    if (kept.length === 0) return 0;
    kept = kept.slice(Math.ceil(kept.length / 2));
  }
}

// A sandbox id of the Playground's form: `pg-` and 20 hex digits, within the sandbox id rules
// (docs/sandbox-api.md#identifiers).
const SANDBOX_ID = /^pg-[0-9a-f]{20}$/;

/**
 * This browser's sandbox id: the saved one, or a new random one (saved) when there is none or
 * it is not of the Playground's form.
 */
export function sandboxId() {
  const saved = load('sandbox', '');
  if (typeof saved === 'string' && SANDBOX_ID.test(saved)) return saved;
  const bytes = new Uint8Array(10);
  crypto.getRandomValues(bytes);
  const id = 'pg-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  save('sandbox', id);
  return id;
}
