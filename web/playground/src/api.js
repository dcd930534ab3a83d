// @ts-check
// The Playground's one way to the server: sandboxd's public HTTP API (docs/sandbox-api.md), on
// the page's own origin. Every failure becomes an ApiError whose message says, in plain words,
// what went wrong and what to do; a 401 asks for an API key and retries.
import { formatBytes } from './output.js';

/**
 * A language's limits as GET /languages reports them (docs/sandbox-api.md#languages, L2); null
 * for a remote binding, whose limits are its own.
 * @typedef {object} Limits
 * @property {number} codeBytes the most bytes of code one execution takes (413 past it)
 * @property {number} requestBytes the most bytes of one execute request's JSON body
 * @property {number} fuel the fuel units one execution may spend
 * @property {number} memoryBytes the guest's memory cap
 * @property {number} [outputBytes] the most bytes of stdout and stderr one execution keeps
 * @property {number} [outputChunks] the most pieces of output one execution keeps
 * @property {number} [resultBytes] the most bytes of the serialized results
 * @property {number} [fileBytes] the most bytes of one workspace file
 */

/**
 * One entry of GET /languages.
 * @typedef {object} Language
 * @property {string} id
 * @property {string} binding
 * @property {string | null} language
 * @property {string | null} engine
 * @property {boolean} contexts
 * @property {boolean} [remote]
 * @property {boolean} [available]
 * @property {Limits | null} limits
 */

/**
 * A guest's failure (docs/protocol.md#execution-result).
 * @typedef {object} ExecutionError
 * @property {string} name
 * @property {string} message
 * @property {string[]} [traceback]
 * @property {number} [lineNumber]
 */

/**
 * @typedef {{ text?: string, json?: unknown }} ResultEntry
 */

/**
 * An ExecutionResult (docs/protocol.md#execution-result); every field may be missing from a
 * result kept in local storage by an older Playground.
 * @typedef {object} ExecutionResult
 * @property {string} [code]
 * @property {string} [language]
 * @property {{ stdout?: string[], stderr?: string[] }} [logs]
 * @property {ResultEntry[]} [results]
 * @property {ExecutionError | null} [error]
 * @property {number} [durationMs]
 * @property {{ fuelConsumed?: number, fuelLimit?: number, memoryBytes?: number }} [usage]
 * @property {number} [executionCount]
 */

/**
 * What a caller sees of a stored snapshot (docs/protocol.md#snapshot-info).
 * @typedef {object} SnapshotInfo
 * @property {number} pages
 * @property {number} bytes
 * @property {number} storedBytes
 * @property {number} [encodedBytes]
 * @property {number} [takenAt]
 * @property {boolean} [stale]
 */

/**
 * @typedef {object} ContextInfo
 * @property {string} id
 * @property {string} binding
 * @property {string} cwd
 * @property {number} executions
 * @property {SnapshotInfo | null} snapshot
 */

/**
 * GET /sandboxes/{id} (docs/sandbox-api.md#sandbox-info).
 * @typedef {object} SandboxInfo
 * @property {ContextInfo[]} [contexts]
 * @property {{ files: number, bytes: number }} [workspace]
 * @property {number | null} [expiresAt]
 */

/**
 * One entry of a files API listing (docs/sandbox-api.md#files-api).
 * @typedef {object} FileEntry
 * @property {string} name
 * @property {string} absolutePath
 * @property {string} [relativePath]
 * @property {'file' | 'directory'} type
 * @property {number} [size]
 */

/**
 * An answer of POST /sandboxes/{id}/files; which fields are set depends on the op.
 * @typedef {object} FilesAnswer
 * @property {FileEntry[]} [files]
 * @property {string} [path]
 * @property {string} [content]
 * @property {boolean} [isBinary]
 * @property {string} [mimeType]
 * @property {number} [size]
 */

const KEY_STORAGE = 'playground.apiKey';

/**
 * What went wrong, for the page to decide what to show: `validation` (400), `unauthorized`
 * (401), `context` (404 CONTEXT_NOT_FOUND), `notFound`, `tooLarge` (413), `busy` (429, 503),
 * `upstream` (502), `protocol` (a 2xx whose body is not a JSON object), `server` (any other
 * status), `unreachable` (no answer at all).
 * @typedef {'validation' | 'unauthorized' | 'context' | 'notFound' | 'tooLarge' | 'busy' |
 *   'upstream' | 'protocol' | 'server' | 'unreachable'} ApiErrorKind
 */

export class ApiError extends Error {
  /**
   * @param {ApiErrorKind} kind
   * @param {string} message
   * @param {{ status?: number, code?: string }} [details] the HTTP status and the answer's code
   */
  constructor(kind, message, { status = 0, code = '' } = {}) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.code = code;
  }
}

/** @type {((message: string) => Promise<string>) | null} */
let askForKey = null;

/**
 * `ask(message)` shows the key prompt and resolves with the new key (rejects when dismissed).
 * @param {((message: string) => Promise<string>) | null} ask null: a 401 is a failure like any other
 */
export function onUnauthorized(ask) {
  askForKey = ask;
}

let memoryKey = '';

/** The API key the page sends, from the session storage (or memory, when storage is off). */
export function apiKey() {
  try {
    return sessionStorage.getItem(KEY_STORAGE) || memoryKey;
  } catch {
    return memoryKey;
  }
}

/** @param {string} key */
export function setApiKey(key) {
  memoryKey = key;
  try {
    sessionStorage.setItem(KEY_STORAGE, key);
  } catch {
    // Storage off: the key lasts until the page is reloaded.
  }
}

/**
 * The sizes an execute request may have, from the language's limits; '' when they are unknown.
 * @param {Limits | null | undefined} limits
 */
function sizeRule(limits) {
  if (!limits || !limits.codeBytes || !limits.requestBytes) return '';
  return (
    ` Code may be at most ${formatBytes(limits.codeBytes)}, the request` +
    ` ${formatBytes(limits.requestBytes)}.`
  );
}

/**
 * @param {number} status
 * @param {unknown} data the parsed body, null when it is not JSON
 * @param {string} text the body as it came
 * @param {number} retryAfter seconds, 0 when absent
 * @param {Limits | null | undefined} limits of the language the request ran, if any
 */
function errorFor(status, data, text, retryAfter, limits) {
  const fields =
    data && typeof data === 'object' ? /** @type {Record<string, unknown>} */ (data) : {};
  const message =
    typeof fields.message === 'string' ? fields.message : text.slice(0, 300) || `HTTP ${status}`;
  const code = typeof fields.code === 'string' ? fields.code : '';
  const opts = { status, code };
  switch (status) {
    case 400:
      return new ApiError('validation', `sandboxd refused the request: ${message}`, opts);
    case 401:
      return new ApiError(
        'unauthorized',
        apiKey()
          ? 'sandboxd refused this API key. Enter a valid one.'
          : 'This sandboxd requires an API key.',
        opts,
      );
    case 404:
      if (code === 'CONTEXT_NOT_FOUND') {
        return new ApiError(
          'context',
          'The code context no longer exists (it was reset or expired). The next run starts a ' +
            'new one.',
          opts,
        );
      }
      return new ApiError('notFound', message, opts);
    case 413:
      return new ApiError(
        'tooLarge',
        `Too large for sandboxd: ${message}.${sizeRule(limits)}`,
        opts,
      );
    case 429:
      return new ApiError(
        'busy',
        `sandboxd is busy: ${message}. Try again in ${retryAfter || 1} s.`,
        opts,
      );
    case 503:
      return new ApiError(
        'busy',
        `sandboxd cannot take this now: ${message}. Try again in a moment.`,
        opts,
      );
    case 502:
      return new ApiError('upstream', `The language runtime failed: ${message}`, opts);
    default:
      if (status >= 200 && status < 300) {
        return new ApiError(
          'protocol',
          `sandboxd answered HTTP ${status} with a body that is not a JSON object.`,
          opts,
        );
      }
      return new ApiError('server', `sandboxd answered HTTP ${status}: ${message}`, opts);
  }
}

/**
 * @param {string} text
 * @returns {unknown} the parsed JSON, null when it is not JSON
 */
function parsed(text) {
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return null;
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} body
 * @param {Limits | null | undefined} limits
 * @returns {Promise<any>}
 */
async function once(method, path, body, limits) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const key = apiKey();
  if (key) headers.authorization = `Bearer ${key}`;
  let res;
  try {
    res = await fetch(new URL(path, location.href), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError(
      'unreachable',
      `Cannot reach sandboxd at ${location.origin}: is it running? ` +
        `(${e instanceof Error ? e.message : String(e)})`,
    );
  }
  const text = await res.text();
  const data = parsed(text);
  if (res.ok && data && typeof data === 'object' && !Array.isArray(data)) return data;
  throw errorFor(res.status, data, text, Number(res.headers.get('retry-after')) || 0, limits);
}

/**
 * Calls `method path` with a JSON body (undefined: none) and returns the parsed answer, a JSON
 * object. A 401 asks for a key (onUnauthorized) and tries again with it; any other failure
 * rejects with an ApiError. `limits` (the language's) only make a 413's message precise.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {Limits | null} [limits]
 * @returns {Promise<any>}
 */
export async function call(method, path, body, limits) {
  for (;;) {
    try {
      return await once(method, path, body, limits);
    } catch (e) {
      if (!(e instanceof ApiError) || e.kind !== 'unauthorized' || !askForKey) throw e;
      setApiKey(await askForKey(e.message));
    }
  }
}

/** @returns {Promise<{ languages?: Language[] }>} */
export const languages = () => call('GET', '/languages');

/**
 * A stateless execution (Script mode) of `code` in `language`.
 * @param {Language} language
 * @param {string} code
 * @returns {Promise<ExecutionResult>}
 */
export const executeStateless = (language, code) =>
  call('POST', `/execute/${encodeURIComponent(language.id)}`, { code }, language.limits);

/**
 * The calls on one sandbox.
 * @param {string} id
 */
export function sandbox(id) {
  const base = `/sandboxes/${encodeURIComponent(id)}`;
  return {
    /** @returns {Promise<SandboxInfo>} */
    info: () => call('GET', base),
    /** @returns {Promise<{ success: boolean }>} */
    wipe: () => call('DELETE', base),
    /**
     * Runs `code` in the default context of `language`'s binding (REPL mode).
     * @param {string} code
     * @param {Language} language
     * @returns {Promise<ExecutionResult>}
     */
    execute: (code, language) =>
      call('POST', `${base}/execute`, { code, binding: language.binding }, language.limits),
    /**
     * @param {string} contextId
     * @returns {Promise<{ success: boolean }>}
     */
    deleteContext: (contextId) =>
      call('DELETE', `${base}/contexts/${encodeURIComponent(contextId)}`),
    /**
     * @param {Record<string, unknown>} request a files API request ({op, path, ...})
     * @returns {Promise<FilesAnswer>}
     */
    files: (request) => call('POST', `${base}/files`, request),
  };
}
