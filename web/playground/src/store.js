// What the Playground keeps in the browser's local storage: the sandbox id, the last language and
// mode, the editor's code, and each language's REPL log and history. Values are JSON; a full or
// disabled storage only loses them.

const PREFIX = 'playground.';

export function load(name, fallback) {
  try {
    const raw = localStorage.getItem(PREFIX + name);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

export function save(name, value) {
  try {
    localStorage.setItem(PREFIX + name, JSON.stringify(value));
  } catch {
    // Quota reached or storage off: the value lives until the page is left.
  }
}

export function remove(name) {
  try {
    localStorage.removeItem(PREFIX + name);
  } catch {
    // As above.
  }
}

// This browser's sandbox: an id of the sandbox id rules (docs/sandbox-api.md#identifiers).
export function sandboxId() {
  let id = load('sandbox', '');
  if (typeof id !== 'string' || !/^pg-[0-9a-f]{20}$/.test(id)) {
    const bytes = new Uint8Array(10);
    crypto.getRandomValues(bytes);
    id = 'pg-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    save('sandbox', id);
  }
  return id;
}
