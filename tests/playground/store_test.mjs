// Unit tests of what the Playground keeps in the browser (web/playground/src/store.js): values
// survive a reload as JSON under `playground.<name>` (the sandbox id above all: it names the
// user's sandbox on the server), a broken, full or disabled storage never throws into the page,
// and a list saved past the quota keeps its newest entries.
//
//   node --test tests/playground/store_test.mjs   (ctest: playground_unit_test)
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';

import { installStorage } from './browser_env.mjs';

const store = await import('../../web/playground/src/store.js');

let storage;
beforeEach(() => {
  storage = installStorage('localStorage');
});

describe('values', () => {
  test('a saved value is stored as JSON under playground.<name> and loads back', () => {
    assert.equal(store.save('code.lua', 'print(1)\n'), true);
    assert.equal(storage.getItem('playground.code.lua'), '"print(1)\\n"');
    assert.equal(store.load('code.lua', null), 'print(1)\n');
    store.save('mode', { nested: [1, 'two'] });
    assert.deepEqual(store.load('mode', null), { nested: [1, 'two'] });
  });

  test('a missing or unparsable value loads as the fallback', () => {
    assert.equal(store.load('language', 'python'), 'python');
    storage.setItem('playground.language', '{not json');
    assert.equal(store.load('language', 'python'), 'python');
  });

  test('remove forgets a value', () => {
    store.save('mode', 'repl');
    store.remove('mode');
    assert.equal(storage.getItem('playground.mode'), null);
    assert.equal(store.load('mode', 'script'), 'script');
  });

  test('a full storage refuses the save without throwing and keeps the old value', () => {
    storage = installStorage('localStorage', { quota: 40 });
    assert.equal(store.save('code.lua', 'short'), true);
    assert.equal(store.save('code.lua', 'x'.repeat(100)), false);
    assert.equal(store.load('code.lua', null), 'short');
  });

  test('a disabled storage (reading it throws) loses values but never throws', () => {
    installStorage('localStorage', { off: true });
    assert.equal(store.save('mode', 'repl'), false);
    assert.equal(store.load('mode', 'script'), 'script');
    assert.doesNotThrow(() => store.remove('mode'));
    assert.deepEqual(store.loadList('log'), []);
    assert.equal(store.saveList('log', [1, 2], 10), 0);
  });
});

describe('lists', () => {
  test('saveList keeps the newest `max` items, in order', () => {
    const list = Array.from({ length: 75 }, (_, i) => i);
    assert.equal(store.saveList('log.s.lua', list, 60), 60);
    const kept = store.loadList('log.s.lua');
    assert.equal(kept.length, 60);
    assert.equal(kept[0], 15);
    assert.equal(kept[59], 74);
  });

  test('past the quota, saveList drops the oldest entries until the list fits', () => {
    // Room for a few of the 1,000-character entries, not for ten.
    storage = installStorage('localStorage', { quota: 4000 });
    const list = Array.from({ length: 10 }, (_, i) => `${i}:${'x'.repeat(1000)}`);
    const saved = store.saveList('log.s.lua', list, 60);
    assert.ok(saved > 0 && saved < 10, `saved ${saved}`);
    const kept = store.loadList('log.s.lua');
    assert.equal(kept.length, saved);
    assert.ok(kept.at(-1).startsWith('9:'), 'the newest entry is kept');
    assert.ok(storage.used() <= 4000);
  });

  test('a single entry larger than the quota leaves an empty list, not the stale one', () => {
    storage = installStorage('localStorage', { quota: 100 });
    store.saveList('log', ['a', 'b'], 10);
    assert.equal(store.saveList('log', ['a', 'b', 'c'.repeat(200)], 10), 0);
    assert.deepEqual(store.loadList('log'), []);
  });

  test('loadList reads anything but an array as empty', () => {
    store.save('history.s.lua', { not: 'a list' });
    assert.deepEqual(store.loadList('history.s.lua'), []);
    store.save('history.s.lua', ['a', 'b']);
    assert.deepEqual(store.loadList('history.s.lua'), ['a', 'b']);
  });
});

describe('sandbox id', () => {
  test('a first visit mints pg- and 20 hex digits and keeps it', () => {
    const id = store.sandboxId();
    assert.match(id, /^pg-[0-9a-f]{20}$/);
    assert.equal(store.load('sandbox', ''), id);
    assert.equal(store.sandboxId(), id, 'a reload finds the same sandbox');
  });

  test('two browsers get different sandboxes', () => {
    const first = store.sandboxId();
    installStorage('localStorage');
    assert.notEqual(store.sandboxId(), first);
  });

  test('a saved id of another form is replaced by a new one', () => {
    for (const bad of ['../etc', 'pg-XYZ', 'pg-0123', 42, null]) {
      store.save('sandbox', bad);
      const id = store.sandboxId();
      assert.match(id, /^pg-[0-9a-f]{20}$/);
      assert.equal(store.load('sandbox', ''), id);
    }
  });
});
