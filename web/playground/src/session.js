// @ts-check
// The session panel: what GET /sandboxes/{id} says of this browser's sandbox and of the
// language's default context (its oldest one, docs/sandbox-api.md#execute SX2): executions, cwd,
// snapshot size, time until the idle expiry; buttons to reset the context and wipe the sandbox.
import { byId, formatBytes } from './output.js';

/** @typedef {import('./api.js').SandboxInfo} SandboxInfo */
/** @typedef {import('./api.js').SnapshotInfo} SnapshotInfo */
/** @typedef {import('./main.js').App} App */

/**
 * @param {string} id
 * @param {string} value
 */
function text(id, value) {
  byId(id).textContent = value;
}

/**
 * What the panel says of a context's snapshot. `bytes` is the memory the snapshot holds (its
 * non-zero pages); `encodedBytes` is what its chunks take in the store, compressed
 * (docs/protocol.md#snapshot-info). A runtime that does not report it (another implementation,
 * or a record written before it was counted) gives only `storedBytes`, the chunks' decoded
 * size, and the panel says so rather than show a number it does not have.
 * @param {SnapshotInfo | null | undefined} snap
 */
export function snapshotText(snap) {
  if (!snap) return 'none yet';
  const stored =
    typeof snap.encodedBytes === 'number'
      ? `stored in ${formatBytes(snap.encodedBytes)}`
      : `stored as ${formatBytes(snap.storedBytes)} of chunks before compression`;
  return (
    `${formatBytes(snap.bytes)} of memory, ${stored}` +
    (snap.stale ? '; older than the live state' : '')
  );
}

/** @param {number} ms */
function countdown(ms) {
  if (ms <= 0) return 'now';
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `in ${h} h ${m} min` : m > 0 ? `in ${m} min ${s % 60} s` : `in ${s} s`;
}

export class Session {
  /** @param {App} app */
  constructor(app) {
    this.app = app;
    /** @type {SandboxInfo | null} */
    this.info = null;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.timer = undefined;
    byId('session-refresh').addEventListener('click', () => this.refresh());
    byId('reset-context').addEventListener('click', () => this.resetContext());
    byId('wipe-sandbox').addEventListener('click', () => this.wipe());
  }

  context() {
    if (!this.info || !Array.isArray(this.info.contexts)) return null;
    return this.info.contexts.find((c) => c.binding === this.app.language.binding) || null;
  }

  async refresh() {
    try {
      this.info = await this.app.api().info();
    } catch (e) {
      this.app.failed(e);
      return;
    }
    this.render();
  }

  render() {
    text('session-sandbox', this.app.sandboxId);
    const ctx = this.context();
    const lang = this.app.language;
    if (!lang.contexts) {
      text('session-context', `none (${lang.language} runs statelessly)`);
    } else {
      text('session-context', ctx ? ctx.id : 'none yet: the first run creates it');
    }
    text('session-executions', ctx ? String(ctx.executions) : '0');
    text('session-cwd', ctx ? ctx.cwd : '–');
    text('session-snapshot', snapshotText(ctx && ctx.snapshot));
    const ws = this.info && this.info.workspace;
    text('session-workspace', ws ? `${ws.files} entries, ${formatBytes(ws.bytes)}` : '–');
    this.tick();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.tick(), 1000);
  }

  tick() {
    const at = this.info && this.info.expiresAt;
    text(
      'session-expiry',
      typeof at === 'number'
        ? `wiped ${countdown(at - Date.now())} if left idle`
        : 'never (no idle expiry)',
    );
  }

  async resetContext() {
    const ctx = this.context();
    if (!ctx) {
      this.app.repl.note('There is no context to reset yet.');
      return;
    }
    try {
      await this.app.api().deleteContext(ctx.id);
      this.app.repl.note('Context reset: its state is gone; the next line starts a new one.');
    } catch (e) {
      this.app.failed(e);
    }
    await this.refresh();
  }

  async wipe() {
    if (
      !window.confirm(
        `Wipe sandbox ${this.app.sandboxId}? Its files, env vars and every ` +
          'code context are deleted.',
      )
    )
      return;
    try {
      await this.app.api().wipe();
      this.app.repl.clearAll(this.app.languages);
      this.app.repl.show();
      this.app.repl.note('Sandbox wiped: files and contexts are gone.');
      this.app.workspace.refresh();
    } catch (e) {
      this.app.failed(e);
    }
    await this.refresh();
  }
}
