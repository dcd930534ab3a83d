// @ts-check
// REPL mode: each submission runs in the sandbox's default code context of the language's
// binding (POST /sandboxes/{id}/execute {code, binding}, docs/sandbox-api.md#execute), so state
// lives on the server and survives a reload and a restart of sandboxd. The log and the history
// are kept per language in local storage.
import * as store from './store.js';
import { byId, el, renderFailure, renderResult } from './output.js';

/** @typedef {import('./api.js').ExecutionResult} ExecutionResult */
/** @typedef {import('./api.js').Language} Language */
/** @typedef {import('./main.js').App} App */

/**
 * One entry of a language's log, as kept in local storage.
 * @typedef {{ kind: 'input', code: string } | { kind: 'result', result: ExecutionResult } |
 *   { kind: 'failure', message: string } | { kind: 'note', message: string }} LogEntry
 */

// The most log entries and history lines kept per language (store.saveList keeps the newest; a
// full storage keeps fewer).
const MAX_LOG = 60;
const MAX_HISTORY = 100;

export class Repl {
  /** @param {App} app */
  constructor(app) {
    this.app = app;
    this.log = byId('repl-log');
    this.input = byId('repl-input', HTMLTextAreaElement);
    this.form = byId('repl-form', HTMLFormElement);
    this.busy = false;
    this.historyIndex = -1;
    this.draft = '';
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    this.input.addEventListener('keydown', (e) => this.onKey(e));
  }

  /** @param {string} kind */
  key(kind) {
    return `${kind}.${this.app.sandboxId}.${this.app.language.id}`;
  }

  /** @returns {LogEntry[]} */
  entries() {
    return /** @type {LogEntry[]} */ (
      store.loadList(this.key('log')).filter((e) => e && typeof e === 'object' && 'kind' in e)
    );
  }

  /** @returns {string[]} */
  history() {
    return store.loadList(this.key('history')).filter((h) => typeof h === 'string');
  }

  // Shows the log of the current language.
  show() {
    this.log.replaceChildren();
    const entries = this.entries();
    if (entries.length === 0) {
      const lang = this.app.language;
      this.log.append(
        el(
          'p',
          { class: 'repl-note' },
          lang.contexts
            ? `${lang.language} REPL (${lang.engine}). Define something, reload the page: it is still there.`
            : `${lang.language} has no code contexts: each line runs on its own, with the sandbox's env vars.`,
        ),
      );
    }
    for (const entry of entries) this.log.append(this.render(entry));
    this.historyIndex = -1;
    this.scroll();
  }

  /**
   * @param {LogEntry} entry
   * @returns {HTMLElement}
   */
  render(entry) {
    if (entry.kind === 'input') {
      return el(
        'pre',
        { class: 'repl-input-line' },
        el('span', { class: 'prompt', 'aria-hidden': 'true' }, '> '),
        entry.code,
      );
    }
    if (entry.kind === 'result') return renderResult(entry.result, this.app.language.limits);
    if (entry.kind === 'failure') return renderFailure({ message: entry.message });
    return el('p', { class: 'repl-note' }, entry.message);
  }

  /** @param {LogEntry} entry */
  append(entry) {
    const entries = this.entries();
    if (entries.length === 0) this.log.replaceChildren();
    entries.push(entry);
    store.saveList(this.key('log'), entries, MAX_LOG);
    this.log.append(this.render(entry));
    this.scroll();
  }

  /** @param {string} message */
  note(message) {
    this.append({ kind: 'note', message });
  }

  scroll() {
    this.log.scrollTop = this.log.scrollHeight;
  }

  /**
   * Forgets every language's log of this sandbox (after a wipe).
   * @param {Language[]} languages
   */
  clearAll(languages) {
    for (const lang of languages) {
      store.remove(`log.${this.app.sandboxId}.${lang.id}`);
    }
  }

  async submit() {
    const code = this.input.value;
    if (this.busy || code.trim() === '') return;
    this.busy = true;
    this.form.setAttribute('aria-busy', 'true');
    const history = this.history().filter((h) => h !== code);
    history.push(code);
    store.saveList(this.key('history'), history, MAX_HISTORY);
    this.historyIndex = -1;
    this.input.value = '';
    this.append({ kind: 'input', code });
    try {
      const result = await this.app.api().execute(code, this.app.language);
      // Stored without the echoed code: the input line above shows it.
      delete result.code;
      this.append({ kind: 'result', result });
      this.app.executed();
    } catch (e) {
      this.append({ kind: 'failure', message: e instanceof Error ? e.message : String(e) });
      this.app.failed(e);
    } finally {
      this.busy = false;
      this.form.removeAttribute('aria-busy');
      this.input.focus();
    }
  }

  /** @param {KeyboardEvent} e */
  onKey(e) {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      this.submit();
      return;
    }
    const value = this.input.value;
    const caret = this.input.selectionStart;
    const history = this.history();
    if (e.key === 'ArrowUp' && !value.slice(0, caret).includes('\n') && history.length > 0) {
      e.preventDefault();
      if (this.historyIndex === -1) {
        this.draft = value;
        this.historyIndex = history.length - 1;
      } else if (this.historyIndex > 0) {
        this.historyIndex -= 1;
      }
      this.input.value = history[this.historyIndex];
    } else if (
      e.key === 'ArrowDown' &&
      !value.slice(caret).includes('\n') &&
      this.historyIndex !== -1
    ) {
      e.preventDefault();
      if (this.historyIndex < history.length - 1) {
        this.historyIndex += 1;
        this.input.value = history[this.historyIndex];
      } else {
        this.historyIndex = -1;
        this.input.value = this.draft;
      }
    }
  }
}
