// REPL mode: each submission runs in the sandbox's default code context of the language's
// binding (POST /sandboxes/{id}/execute {code, binding}, docs/sandbox-api.md#execute), so state
// lives on the server and survives a reload and a restart of sandboxd. The log and the history
// are kept per language in local storage.
import * as store from './store.js';
import { el, renderFailure, renderResult } from './output.js';

const MAX_LOG = 60;
const MAX_HISTORY = 100;

export class Repl {
  constructor(app) {
    this.app = app;
    this.log = document.getElementById('repl-log');
    this.input = document.getElementById('repl-input');
    this.form = document.getElementById('repl-form');
    this.busy = false;
    this.historyIndex = -1;
    this.draft = '';
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    this.input.addEventListener('keydown', (e) => this.onKey(e));
  }

  key(kind) {
    return `${kind}.${this.app.sandboxId}.${this.app.language.id}`;
  }

  entries() {
    return store.load(this.key('log'), []);
  }

  history() {
    return store.load(this.key('history'), []);
  }

  // Shows the log of the current language.
  show() {
    this.log.replaceChildren();
    const entries = this.entries();
    if (entries.length === 0) {
      const lang = this.app.language;
      this.log.append(el('p', { class: 'repl-note' }, lang.contexts
        ? `${lang.language} REPL (${lang.engine}). Define something, reload the page: it is still there.`
        : `${lang.language} has no code contexts: each line runs on its own, with the sandbox's env vars.`));
    }
    for (const entry of entries) this.log.append(this.render(entry));
    this.historyIndex = -1;
    this.scroll();
  }

  render(entry) {
    if (entry.kind === 'input') {
      return el('pre', { class: 'repl-input-line' }, el('span', { class: 'prompt', 'aria-hidden': 'true' }, '> '), entry.code);
    }
    if (entry.kind === 'result') return renderResult(entry.result, this.app.language.limits);
    if (entry.kind === 'failure') return renderFailure({ message: entry.message });
    return el('p', { class: 'repl-note' }, entry.message);
  }

  append(entry) {
    const entries = this.entries();
    if (entries.length === 0) this.log.replaceChildren();
    entries.push(entry);
    store.save(this.key('log'), entries.slice(-MAX_LOG));
    this.log.append(this.render(entry));
    this.scroll();
  }

  note(message) {
    this.append({ kind: 'note', message });
  }

  scroll() {
    this.log.scrollTop = this.log.scrollHeight;
  }

  // Forgets every language's log of this sandbox (after a wipe).
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
    store.save(this.key('history'), history.slice(-MAX_HISTORY));
    this.historyIndex = -1;
    this.input.value = '';
    this.append({ kind: 'input', code });
    try {
      const result = await this.app.api().execute(code, this.app.language.binding);
      // Stored without the echoed code: the input line above shows it.
      delete result.code;
      this.append({ kind: 'result', result });
      this.app.executed(result);
    } catch (e) {
      this.append({ kind: 'failure', message: e.message });
      this.app.failed(e);
    } finally {
      this.busy = false;
      this.form.removeAttribute('aria-busy');
      this.input.focus();
    }
  }

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
    } else if (e.key === 'ArrowDown' && !value.slice(caret).includes('\n') && this.historyIndex !== -1) {
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
