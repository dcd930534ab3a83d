// The Playground's one way to the server: sandboxd's public HTTP API (docs/sandbox-api.md), on
// the page's own origin. Every failure becomes an ApiError whose message says, in plain words,
// what went wrong and what to do; a 401 asks for an API key and retries.

const KEY_STORAGE = 'playground.apiKey';

export class ApiError extends Error {
  constructor(kind, message, { status = 0, code = '' } = {}) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.code = code;
  }
}

let askForKey = null;

// `ask(message)` shows the key prompt and resolves with the new key (rejects when dismissed).
export function onUnauthorized(ask) {
  askForKey = ask;
}

export function apiKey() {
  try {
    return sessionStorage.getItem(KEY_STORAGE) || '';
  } catch {
    return '';
  }
}

export function setApiKey(key) {
  try {
    sessionStorage.setItem(KEY_STORAGE, key);
  } catch {
    // Storage off: the key lasts until the page is reloaded.
  }
  memoryKey = key;
}
let memoryKey = '';

function errorFor(status, data, text, retryAfter) {
  const message = data && typeof data.message === 'string' ? data.message : text.slice(0, 300);
  const code = data && typeof data.code === 'string' ? data.code : '';
  const opts = { status, code };
  switch (status) {
    case 400:
      return new ApiError('validation', `sandboxd refused the request: ${message}`, opts);
    case 401:
      return new ApiError('unauthorized', apiKey() || memoryKey
        ? 'sandboxd refused this API key. Enter a valid one.'
        : 'This sandboxd requires an API key.', opts);
    case 404:
      if (code === 'CONTEXT_NOT_FOUND') {
        return new ApiError('context', 'The code context no longer exists (it was reset or ' +
          'expired). The next run starts a new one.', opts);
      }
      return new ApiError('notFound', message, opts);
    case 413:
      return new ApiError('tooLarge', `Too large for sandboxd: ${message}. Code may be at most ` +
        '64 KiB, a request 96 KiB, a workspace file 1 MiB.', opts);
    case 429:
      return new ApiError('busy', `sandboxd is busy: ${message}. Try again in ` +
        `${retryAfter || 1} s.`, opts);
    case 503:
      return new ApiError('busy', `sandboxd cannot take this now: ${message}. Try again in a ` +
        'moment.', opts);
    case 502:
      return new ApiError('upstream', `The language runtime failed: ${message}`, opts);
    default:
      if (status >= 200 && status < 300) {
        return new ApiError('protocol', `sandboxd answered HTTP ${status} with a body that is ` +
          'not JSON.', opts);
      }
      return new ApiError('server', `sandboxd answered HTTP ${status}: ${message}`, opts);
  }
}

async function once(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const key = apiKey() || memoryKey;
  if (key) headers.authorization = `Bearer ${key}`;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError('unreachable', `Cannot reach sandboxd at ${location.origin}: is it ` +
      `running? (${e.message})`);
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = null;
  }
  if (res.ok && data && typeof data === 'object') return data;
  throw errorFor(res.status, data, text, Number(res.headers.get('retry-after')) || 0);
}

// Calls `method path` with a JSON body (undefined: none) and returns the parsed answer.
export async function call(method, path, body) {
  for (;;) {
    try {
      return await once(method, path, body);
    } catch (e) {
      if (!(e instanceof ApiError) || e.kind !== 'unauthorized' || !askForKey) throw e;
      setApiKey(await askForKey(e.message));
    }
  }
}

export const languages = () => call('GET', '/languages');
export const executeStateless = (language, code) =>
  call('POST', `/execute/${encodeURIComponent(language)}`, { code });

export function sandbox(id) {
  const base = `/sandboxes/${encodeURIComponent(id)}`;
  return {
    info: () => call('GET', base),
    wipe: () => call('DELETE', base),
    execute: (code, binding) => call('POST', `${base}/execute`, { code, binding }),
    deleteContext: (contextId) =>
      call('DELETE', `${base}/contexts/${encodeURIComponent(contextId)}`),
    files: (request) => call('POST', `${base}/files`, request),
  };
}
