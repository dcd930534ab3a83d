// Rendering of an ExecutionResult (docs/protocol.md#execution-result): stdout, stderr, results
// and the error each in its own style, then duration, fuel and memory; limit errors explained.

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

const integer = new Intl.NumberFormat('en-US');

export function formatBytes(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '–';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

function formatMs(ms) {
  if (typeof ms !== 'number') return '';
  return ms < 10 ? `${ms.toFixed(2)} ms` : ms < 10000 ? `${ms.toFixed(0)} ms` :
    `${(ms / 1000).toFixed(1)} s`;
}

// Plain words for the limit errors (docs/protocol.md#limit-errors) and the engine's own failure.
export function explain(error, limits) {
  const message = String(error.message || '');
  if (error.name === 'ExecutionLimitError') {
    if (/fuel/i.test(message)) {
      const fuel = limits && limits.fuel ? ` (${integer.format(limits.fuel)} fuel units)` : '';
      return 'The program used up its fuel: one execution may only do so much work' + fuel +
        ', and an endless loop ends this way. Do less per run, or split the work across runs.';
    }
    if (/output/i.test(message)) {
      return 'The program printed more than one execution may keep (32 KiB or 200 pieces of ' +
        'stdout and stderr together), so it was stopped. Print less.';
    }
    if (/result/i.test(message)) {
      return 'The value the program returned is too large to send back (over 64 KiB once ' +
        'serialized). Return something smaller, or write it to a file in the workspace.';
    }
    return 'The program reached one of the limits of an execution.';
  }
  if (error.name === 'EngineError') {
    return 'The language engine itself failed (a problem of the server, not of your program).';
  }
  if (/memory/i.test(error.name + ' ' + message)) {
    const memory = limits && limits.memoryBytes ? ` of ${formatBytes(limits.memoryBytes)}` : '';
    return `The program needed more memory than its limit${memory}.`;
  }
  return '';
}

function resultText(entry) {
  if (entry && typeof entry.text === 'string') return entry.text;
  if (entry && 'json' in entry) return JSON.stringify(entry.json, null, 2);
  return JSON.stringify(entry);
}

function lines(cls, label, list) {
  if (!Array.isArray(list) || list.length === 0) return null;
  return el('pre', { class: cls, 'aria-label': label }, list.join('\n'));
}

// The DOM of one result. `limits` is the language's limits from GET /languages (may be null).
export function renderResult(result, limits) {
  const block = el('div', { class: 'result-block' });
  const logs = result.logs || {};
  block.append(...[lines('out-stdout', 'stdout', logs.stdout),
    lines('out-stderr', 'stderr', logs.stderr)].filter(Boolean));
  for (const entry of result.results || []) {
    block.append(el('pre', { class: 'out-result', 'aria-label': 'result' }, resultText(entry)));
  }
  if (result.error) {
    const e = result.error;
    const box = el('div', { class: 'out-error', role: 'group', 'aria-label': 'error' });
    const head = el('p', { class: 'err-head' }, el('strong', { class: 'err-name' }, e.name || 'Error'),
      ': ', el('span', { class: 'err-message' }, e.message || ''));
    if (typeof e.lineNumber === 'number') {
      head.append(el('span', { class: 'err-line' }, ` (line ${e.lineNumber})`));
    }
    box.append(head);
    const why = explain(e, limits);
    if (why) box.append(el('p', { class: 'err-explain' }, why));
    if (Array.isArray(e.traceback) && e.traceback.length > 0) {
      box.append(el('pre', { class: 'err-traceback', 'aria-label': 'traceback' }, e.traceback.join('\n')));
    }
    block.append(box);
  }
  const empty = !result.error && (result.results || []).length === 0 &&
    !(logs.stdout || []).length && !(logs.stderr || []).length;
  if (empty) block.append(el('p', { class: 'out-empty' }, 'No output and no result.'));
  block.append(renderMeta(result));
  return block;
}

function renderMeta(result) {
  const parts = [];
  if (typeof result.durationMs === 'number') parts.push(formatMs(result.durationMs));
  const u = result.usage;
  if (u && typeof u.fuelConsumed === 'number') {
    parts.push(u.fuelLimit ? `fuel ${integer.format(u.fuelConsumed)} of ${integer.format(u.fuelLimit)}`
      : `fuel ${integer.format(u.fuelConsumed)}`);
  }
  if (u && typeof u.memoryBytes === 'number') parts.push(`memory ${formatBytes(u.memoryBytes)}`);
  if (typeof result.executionCount === 'number') parts.push(`execution #${result.executionCount}`);
  return el('p', { class: 'out-meta' }, parts.join(' · '));
}

// A request that failed (an ApiError): a message, not a result.
export function renderFailure(error) {
  return el('div', { class: 'result-block' },
    el('p', { class: 'out-failure', role: 'alert' }, error.message || String(error)));
}
