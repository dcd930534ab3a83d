// @ts-check
// Rendering of an ExecutionResult (docs/protocol.md#execution-result): stdout, stderr, results
// and the error each in its own style, then duration, fuel and memory; limit errors explained
// with the language's limits from GET /languages; a Python error in CPython's own order.

/** @typedef {import('./api.js').ExecutionError} ExecutionError */
/** @typedef {import('./api.js').ExecutionResult} ExecutionResult */
/** @typedef {import('./api.js').Limits} Limits */
/** @typedef {import('./api.js').ResultEntry} ResultEntry */

/**
 * A new element: `attrs` are attributes (`class` sets the class name, `text` the text content),
 * `children` nodes or strings, null and undefined skipped.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string>} [attrs]
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/**
 * The page's element `#id`, checked to be a `type` (HTMLElement by default): the page and the
 * script are built together, so a missing one is a bug, thrown as such.
 * @template {HTMLElement} [T=HTMLElement]
 * @param {string} id
 * @param {new () => T} [type]
 * @returns {T}
 */
export function byId(id, type) {
  const node = document.getElementById(id);
  if (!node || !(node instanceof (type || HTMLElement))) {
    throw new Error(`The page has no ${type ? type.name : 'element'} #${id}`);
  }
  return /** @type {T} */ (node);
}

const integer = new Intl.NumberFormat('en-US');

/**
 * `n` bytes in B, KiB or MiB; '–' when `n` is not a number.
 * @param {unknown} n
 */
export function formatBytes(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '–';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/** @param {unknown} ms */
function formatMs(ms) {
  if (typeof ms !== 'number') return '';
  return ms < 10
    ? `${ms.toFixed(2)} ms`
    : ms < 10000
      ? `${ms.toFixed(0)} ms`
      : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The limits of one execution that are not the language's own (output, result): the one
 * /languages reports, or nothing (the sentence then names no number).
 * @param {number | undefined} n
 * @param {(n: number) => string} say
 */
function known(n, say) {
  return typeof n === 'number' && n > 0 ? say(n) : '';
}

/**
 * Plain words for the limit errors (docs/protocol.md#limit-errors) and the engine's own failure,
 * with the numbers of `limits` (the language's, from GET /languages; null: no numbers); '' for
 * an error of the program itself.
 * @param {ExecutionError} error
 * @param {Limits | null | undefined} limits
 */
export function explain(error, limits) {
  const message = String(error.message || '');
  if (error.name === 'ExecutionLimitError') {
    if (/fuel/i.test(message)) {
      const fuel = known(limits?.fuel, (n) => ` (${integer.format(n)} fuel units)`);
      return (
        'The program used up its fuel: one execution may only do so much work' +
        fuel +
        ', and an endless loop ends this way. Do less per run, or split the work across runs.'
      );
    }
    if (/output/i.test(message)) {
      const bytes = known(limits?.outputBytes, formatBytes);
      const chunks = known(limits?.outputChunks, (n) => `${integer.format(n)} pieces`);
      const cap = bytes && chunks ? ` (${bytes} or ${chunks} of stdout and stderr together)` : '';
      return (
        `The program printed more than one execution may keep${cap}, so it was stopped. ` +
        'Print less.'
      );
    }
    if (/result/i.test(message)) {
      const cap = known(limits?.resultBytes, (n) => ` (over ${formatBytes(n)} once serialized)`);
      return (
        `The value the program returned is too large to send back${cap}. Return something ` +
        'smaller, or write it to a file in the workspace.'
      );
    }
    return 'The program reached one of the limits of an execution.';
  }
  if (error.name === 'EngineError') {
    return 'The language engine itself failed (a problem of the server, not of your program).';
  }
  if (/memory/i.test(error.name + ' ' + message)) {
    const memory = known(limits?.memoryBytes, (n) => ` of ${formatBytes(n)}`);
    return `The program needed more memory than its limit${memory}.`;
  }
  return '';
}

/**
 * A Python error as CPython prints it, and as `sandbox run` does (tools/sandbox/error_format.h,
 * docs/languages.md#errors-in-the-cli): "Traceback (most recent call last):", the frames oldest
 * first, then "Name: message". A SyntaxError has no "Traceback" line, its frames are the
 * offending line and the caret, and its message loses str()'s " (<file>, line N)". The wire's
 * traceback starts with "Name: message" as a header, which moves to the end. Returns the lines
 * before the last one, and the last one's name and message.
 * @param {ExecutionError} error
 * @returns {{ lines: string[], name: string, message: string }}
 */
export function pythonError(error) {
  const name = error.name || 'Error';
  let message = error.message || '';
  const frames = Array.isArray(error.traceback) ? error.traceback.slice() : [];
  const header = message ? `${name}: ${message}` : name;
  if (frames.length > 0 && (frames[0] === header || frames[0] === `${name}: ${message}`)) {
    frames.shift();
  }
  if (name === 'SyntaxError' || name === 'IndentationError' || name === 'TabError') {
    message = message.replace(/ \([^()]*, line \d+\)$/, '');
    return { lines: frames, name, message };
  }
  return {
    lines: frames.length > 0 ? ['Traceback (most recent call last):', ...frames] : [],
    name,
    message,
  };
}

/** @param {ResultEntry} entry */
function resultText(entry) {
  if (entry && typeof entry.text === 'string') return entry.text;
  if (entry && 'json' in entry) return JSON.stringify(entry.json, null, 2);
  return JSON.stringify(entry);
}

/**
 * @param {string} cls
 * @param {string} label
 * @param {string[] | undefined} list
 */
function lines(cls, label, list) {
  if (!Array.isArray(list) || list.length === 0) return null;
  return el('pre', { class: cls, 'aria-label': label }, list.join('\n'));
}

/**
 * The error box of a result: a Python error as CPython prints it (pythonError), any other the
 * name and message first, then the traceback lines as the engine sent them.
 * @param {ExecutionError} e
 * @param {string | undefined} language the result's `language`
 * @param {Limits | null | undefined} limits
 */
function renderError(e, language, limits) {
  const box = el('div', { class: 'out-error', role: 'group', 'aria-label': 'error' });
  const why = explain(e, limits);
  const explanation = why ? el('p', { class: 'err-explain' }, why) : null;
  const name = () => el('strong', { class: 'err-name' }, e.name || 'Error');
  if (String(language || '').toLowerCase() === 'python') {
    const py = pythonError(e);
    const pre = el('pre', { class: 'err-traceback err-python', 'aria-label': 'traceback' });
    if (py.lines.length > 0) pre.append(py.lines.join('\n') + '\n');
    pre.append(name());
    if (py.message) pre.append(': ', el('span', { class: 'err-message' }, py.message));
    box.append(pre);
    if (explanation) box.append(explanation);
  } else {
    const head = el(
      'p',
      { class: 'err-head' },
      name(),
      ': ',
      el('span', { class: 'err-message' }, e.message || ''),
    );
    if (typeof e.lineNumber === 'number') {
      head.append(el('span', { class: 'err-line' }, ` (line ${e.lineNumber})`));
    }
    box.append(head);
    if (explanation) box.append(explanation);
    if (Array.isArray(e.traceback) && e.traceback.length > 0) {
      box.append(
        el('pre', { class: 'err-traceback', 'aria-label': 'traceback' }, e.traceback.join('\n')),
      );
    }
  }
  return box;
}

/**
 * The DOM of one result. `limits` is the language's limits from GET /languages (may be null).
 * @param {ExecutionResult} result
 * @param {Limits | null | undefined} limits
 */
export function renderResult(result, limits) {
  const block = el('div', { class: 'result-block' });
  const logs = result.logs || {};
  for (const node of [
    lines('out-stdout', 'stdout', logs.stdout),
    lines('out-stderr', 'stderr', logs.stderr),
  ]) {
    if (node) block.append(node);
  }
  for (const entry of result.results || []) {
    block.append(el('pre', { class: 'out-result', 'aria-label': 'result' }, resultText(entry)));
  }
  if (result.error) block.append(renderError(result.error, result.language, limits));
  const empty =
    !result.error &&
    (result.results || []).length === 0 &&
    !(logs.stdout || []).length &&
    !(logs.stderr || []).length;
  if (empty) block.append(el('p', { class: 'out-empty' }, 'No output and no result.'));
  block.append(renderMeta(result));
  return block;
}

/** @param {ExecutionResult} result */
function renderMeta(result) {
  const parts = [];
  if (typeof result.durationMs === 'number') parts.push(formatMs(result.durationMs));
  const u = result.usage;
  if (u && typeof u.fuelConsumed === 'number') {
    parts.push(
      u.fuelLimit
        ? `fuel ${integer.format(u.fuelConsumed)} of ${integer.format(u.fuelLimit)}`
        : `fuel ${integer.format(u.fuelConsumed)}`,
    );
  }
  if (u && typeof u.memoryBytes === 'number') parts.push(`memory ${formatBytes(u.memoryBytes)}`);
  if (typeof result.executionCount === 'number') parts.push(`execution #${result.executionCount}`);
  return el('p', { class: 'out-meta' }, parts.join(' · '));
}

/**
 * A request that failed (an ApiError): a message, not a result.
 * @param {{ message?: string }} error
 */
export function renderFailure(error) {
  return el(
    'div',
    { class: 'result-block' },
    el('p', { class: 'out-failure', role: 'alert' }, error.message || String(error)),
  );
}
