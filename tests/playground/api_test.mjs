// Unit tests of the Playground's API client (web/playground/src/api.js) against a real HTTP
// server on loopback that records each request and answers what the test scripts: the request
// shapes sandboxd relies on (docs/sandbox-api.md#playground, PG3), the ApiError every failure
// becomes (an answer that is not JSON, each HTTP status the page explains, no server at all),
// and the API key prompt after a 401.
//
//   node --test tests/playground/api_test.mjs   (ctest: playground_unit_test)
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';

import { installLocation, installStorage } from './browser_env.mjs';

const api = await import('../../web/playground/src/api.js');

// The limits GET /languages reports for a built-in engine (docs/sandbox-api.md#languages).
const LIMITS = { codeBytes: 65536, requestBytes: 98304, fuel: 1e9, memoryBytes: 268435456 };
const LUA = { id: 'lua', binding: 'LUA', language: 'lua', engine: 'Lua', contexts: true };

// Every request the server saw, and the answers it still has to give (FIFO; when none is left,
// 200 {}).
const seen = [];
const answers = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body });
    const a = answers.shift() || { status: 200, body: '{}' };
    res.writeHead(a.status, { 'content-type': a.type || 'application/json', ...a.headers });
    res.end(a.body);
  });
});

function answer(status, body, extra = {}) {
  answers.push({ status, body: typeof body === 'string' ? body : JSON.stringify(body), ...extra });
}

async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('the call resolved; a rejection was expected');
}

before(async () => {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  installLocation(`http://127.0.0.1:${server.address().port}`);
});

after(() => new Promise((resolve) => server.close(resolve)));

beforeEach(() => {
  seen.length = 0;
  answers.length = 0;
  installStorage('sessionStorage');
  api.setApiKey('');
  api.onUnauthorized(null);
});

describe('request shapes', () => {
  test('GET /languages sends no body, no content type and no key, and returns the answer', async () => {
    answer(200, { languages: [{ ...LUA, limits: LIMITS }], server: { name: 'sandboxd' } });
    const got = await api.languages();
    assert.deepEqual(got.languages[0].limits, LIMITS);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].method, 'GET');
    assert.equal(seen[0].url, '/languages');
    assert.equal(seen[0].body, '');
    assert.equal(seen[0].headers['content-type'], undefined);
    assert.equal(seen[0].headers.authorization, undefined);
  });

  test('a stateless execute posts {code} as JSON to /execute/{language id}, encoded', async () => {
    answer(200, { logs: { stdout: ['hi'], stderr: [] }, results: [] });
    const got = await api.executeStateless({ ...LUA, id: 'a b/c', limits: LIMITS }, 'print("hi")');
    assert.deepEqual(got.logs.stdout, ['hi']);
    assert.equal(seen[0].method, 'POST');
    assert.equal(seen[0].url, '/execute/a%20b%2Fc');
    assert.equal(seen[0].headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(seen[0].body), { code: 'print("hi")' });
  });

  test("a REPL execute posts {code, binding} to the sandbox's execute route", async () => {
    answer(200, { executionCount: 1 });
    const sandbox = api.sandbox('pg-0123456789abcdef0123');
    const got = await sandbox.execute('x = 1', { ...LUA, limits: LIMITS });
    assert.equal(got.executionCount, 1);
    assert.equal(seen[0].method, 'POST');
    assert.equal(seen[0].url, '/sandboxes/pg-0123456789abcdef0123/execute');
    assert.deepEqual(JSON.parse(seen[0].body), { code: 'x = 1', binding: 'LUA' });
  });

  test('info, wipe, context reset and files use the routes of PG3', async () => {
    const sandbox = api.sandbox('pg-0123456789abcdef0123');
    await sandbox.info();
    await sandbox.wipe();
    await sandbox.deleteContext('ctx/1');
    await sandbox.files({ op: 'list', path: '/workspace', recursive: true });
    assert.deepEqual(
      seen.map((r) => `${r.method} ${r.url}`),
      [
        'GET /sandboxes/pg-0123456789abcdef0123',
        'DELETE /sandboxes/pg-0123456789abcdef0123',
        'DELETE /sandboxes/pg-0123456789abcdef0123/contexts/ctx%2F1',
        'POST /sandboxes/pg-0123456789abcdef0123/files',
      ],
    );
    assert.equal(seen[0].body, '');
    assert.equal(seen[1].body, '');
    assert.deepEqual(JSON.parse(seen[3].body), {
      op: 'list',
      path: '/workspace',
      recursive: true,
    });
  });
});

describe('failures', () => {
  test('a 200 whose body is not JSON is a protocol error, not a result', async () => {
    answer(200, '<html>proxy login</html>', { type: 'text/html' });
    const e = await rejection(api.languages());
    assert.ok(e instanceof api.ApiError);
    assert.equal(e.kind, 'protocol');
    assert.equal(e.status, 200);
    assert.match(e.message, /HTTP 200 with a body that is not a JSON object/);
  });

  test('a 200 whose body is JSON but not an object is a protocol error', async () => {
    answer(200, '[1, 2]');
    const e = await rejection(api.languages());
    assert.equal(e.kind, 'protocol');
  });

  test("an HTTP error with a body that is not JSON shows the status and the body's start", async () => {
    answer(500, 'x'.repeat(1000), { type: 'text/plain' });
    const e = await rejection(api.languages());
    assert.equal(e.kind, 'server');
    assert.equal(e.status, 500);
    assert.ok(e.message.startsWith('sandboxd answered HTTP 500: xxx'), e.message);
    assert.ok(e.message.length < 400, 'the body is cut to 300 characters');
  });

  test('an HTTP error with an empty body still says which status it was', async () => {
    answer(500, '');
    const e = await rejection(api.languages());
    assert.equal(e.message, 'sandboxd answered HTTP 500: HTTP 500');
  });

  test("a 400 carries sandboxd's message and code", async () => {
    answer(400, { error: 'Bad Request', code: 'VALIDATION_FAILED', message: 'code is required' });
    const e = await rejection(api.executeStateless({ ...LUA, limits: LIMITS }, ''));
    assert.equal(e.kind, 'validation');
    assert.equal(e.code, 'VALIDATION_FAILED');
    assert.equal(e.message, 'sandboxd refused the request: code is required');
  });

  test('a 404 CONTEXT_NOT_FOUND says the context is gone and the next run starts one', async () => {
    answer(404, { code: 'CONTEXT_NOT_FOUND', message: 'Context not found' });
    const e = await rejection(api.sandbox('pg-0123456789abcdef0123').deleteContext('c'));
    assert.equal(e.kind, 'context');
    assert.match(e.message, /next run starts a new one/);
  });

  test("a 413 of an execute states the language's limits from /languages", async () => {
    answer(413, { code: 'VALIDATION_FAILED', message: 'Code too large' });
    const e = await rejection(api.executeStateless({ ...LUA, limits: LIMITS }, 'x'));
    assert.equal(e.kind, 'tooLarge');
    assert.equal(
      e.message,
      'Too large for sandboxd: Code too large. Code may be at most 64.0 KiB, the request 96.0 KiB.',
    );
    answer(413, { message: 'Code too large' });
    const small = { ...LIMITS, codeBytes: 1024, requestBytes: 2048 };
    const e2 = await rejection(api.executeStateless({ ...LUA, limits: small }, 'x'));
    assert.match(e2.message, /at most 1\.0 KiB, the request 2\.0 KiB\.$/);
  });

  test('a 413 without known limits (a remote binding, the files API) names no number', async () => {
    answer(413, { message: 'Request too large' });
    const e = await rejection(api.executeStateless({ ...LUA, limits: null }, 'x'));
    assert.equal(e.message, 'Too large for sandboxd: Request too large.');
    answer(413, { message: 'Request too large' });
    const e2 = await rejection(api.sandbox('pg-0123456789abcdef0123').files({ op: 'write' }));
    assert.equal(e2.message, 'Too large for sandboxd: Request too large.');
  });

  test('a 429 says when to try again, from Retry-After', async () => {
    answer(429, { message: 'Too many executions' }, { headers: { 'retry-after': '3' } });
    const e = await rejection(api.languages());
    assert.equal(e.kind, 'busy');
    assert.equal(e.message, 'sandboxd is busy: Too many executions. Try again in 3 s.');
  });

  test('503 is busy and 502 is the runtime failing', async () => {
    answer(503, { message: 'Server busy' });
    assert.equal((await rejection(api.languages())).kind, 'busy');
    answer(502, { message: "Binding 'X' failed" });
    const e = await rejection(api.languages());
    assert.equal(e.kind, 'upstream');
    assert.equal(e.message, "The language runtime failed: Binding 'X' failed");
  });

  test('no server at all is "unreachable", naming the origin', async () => {
    const closed = http.createServer();
    await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${closed.address().port}`;
    await new Promise((resolve) => closed.close(resolve));
    installLocation(origin);
    try {
      const e = await rejection(api.languages());
      assert.equal(e.kind, 'unreachable');
      assert.ok(e.message.startsWith(`Cannot reach sandboxd at ${origin}: is it running?`));
    } finally {
      installLocation(`http://127.0.0.1:${server.address().port}`);
    }
  });
});

describe('API key', () => {
  test('a 401 asks for a key, keeps it in the session storage and retries with it', async () => {
    answer(401, { code: 'UNAUTHORIZED', message: 'Missing API key' });
    answer(200, { languages: [] });
    const asked = [];
    api.onUnauthorized(async (message) => {
      asked.push(message);
      return 'k-123';
    });
    const got = await api.languages();
    assert.deepEqual(got, { languages: [] });
    assert.deepEqual(asked, ['This sandboxd requires an API key.']);
    assert.equal(seen.length, 2);
    assert.equal(seen[0].headers.authorization, undefined);
    assert.equal(seen[1].headers.authorization, 'Bearer k-123');
    assert.equal(globalThis.sessionStorage.getItem('playground.apiKey'), 'k-123');
    assert.equal(api.apiKey(), 'k-123');

    // The next call sends the key at once.
    await api.languages();
    assert.equal(seen[2].headers.authorization, 'Bearer k-123');
  });

  test('a refused key is asked for again, saying it was refused', async () => {
    api.setApiKey('wrong');
    answer(401, { message: 'Invalid API key' });
    answer(200, {});
    const asked = [];
    api.onUnauthorized(async (message) => {
      asked.push(message);
      return 'right';
    });
    await api.languages();
    assert.deepEqual(asked, ['sandboxd refused this API key. Enter a valid one.']);
    assert.equal(seen[0].headers.authorization, 'Bearer wrong');
    assert.equal(seen[1].headers.authorization, 'Bearer right');
  });

  test('a dismissed prompt rejects the call with what the prompt rejected with', async () => {
    answer(401, { message: 'Missing API key' });
    api.onUnauthorized(async () => {
      throw new api.ApiError('unauthorized', 'No API key given');
    });
    const e = await rejection(api.languages());
    assert.equal(e.message, 'No API key given');
    assert.equal(seen.length, 1);
  });

  test('without a prompt a 401 is an ApiError of kind unauthorized', async () => {
    answer(401, { message: 'Missing API key' });
    const e = await rejection(api.languages());
    assert.equal(e.kind, 'unauthorized');
    assert.equal(e.status, 401);
  });

  test('with the session storage off the key still lasts for the page', async () => {
    installStorage('sessionStorage', { off: true });
    api.setApiKey('k-mem');
    await api.languages();
    assert.equal(seen[0].headers.authorization, 'Bearer k-mem');
  });
});
