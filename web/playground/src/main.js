// @ts-check
// The Playground (docs/sandbox-api.md#playground): a page served by sandboxd at / that talks to
// it only through the public HTTP API (api.js). Script mode runs stateless executions; REPL mode
// runs in this browser's sandbox (its id in local storage) with one code context per language;
// the Workspace tab edits the sandbox's files.
import * as api from './api.js';
import * as store from './store.js';
import { createEditor } from './editor.js';
import { examplesFor } from './examples.js';
import { byId, el, renderFailure, renderResult } from './output.js';
import { Repl } from './repl.js';
import { Session } from './session.js';
import { Workspace } from './workspace.js';

/** @typedef {import('./api.js').Language} Language */

/**
 * What every part of the page shares: the sandbox, the languages of GET /languages, the one
 * selected, the mode, and the parts themselves.
 * @typedef {object} App
 * @property {string} sandboxId
 * @property {Language[]} languages
 * @property {Language} language
 * @property {string} mode
 * @property {() => ReturnType<typeof api.sandbox>} api the calls on this browser's sandbox
 * @property {() => void} executed after a REPL execution
 * @property {(error: unknown) => void} failed shows a failure in the banner
 * @property {(message: string) => void} notify shows a message in the banner
 * @property {Repl} repl
 * @property {Session} session
 * @property {Workspace} workspace
 */

const $ = byId;

// Its parts (repl, session, workspace) are added below, once it exists: they take it.
const app = /** @type {App} */ (
  /** @type {unknown} */ ({
    sandboxId: store.sandboxId(),
    languages: [],
    language: { id: '', binding: '', language: '', engine: '', contexts: false, limits: null },
    mode: 'script',
    /** @this {App} */
    api() {
      return api.sandbox(this.sandboxId);
    },
    /**
     * After a REPL execution: the session and the workspace may have changed.
     * @this {App}
     */
    executed() {
      hideBanner();
      this.session.refresh();
      this.workspace.stale = true;
      if (this.mode === 'workspace') this.workspace.refresh();
    },
    /** @param {unknown} error */
    failed(error) {
      showBanner(error instanceof Error ? error.message : String(error), 'error');
    },
    /** @param {string} message */
    notify(message) {
      showBanner(message, 'info');
    },
  })
);

/**
 * @param {string} message
 * @param {'error' | 'info'} kind
 */
function showBanner(message, kind) {
  $('banner-text').textContent = message;
  $('banner').dataset.kind = kind;
  $('banner').hidden = false;
}

function hideBanner() {
  $('banner').hidden = true;
}

// --- API key prompt ---------------------------------------------------------------------------
api.onUnauthorized(
  (message) =>
    new Promise((resolve, reject) => {
      const dialog = $('key-dialog', HTMLDialogElement);
      const input = $('key-input', HTMLInputElement);
      $('key-message').textContent = message;
      input.value = '';
      const form = $('key-form', HTMLFormElement);
      /** @param {SubmitEvent} e */
      const done = (e) => {
        e.preventDefault();
        const key = input.value.trim();
        if (!key) return;
        form.removeEventListener('submit', done);
        dialog.removeEventListener('cancel', cancel);
        dialog.close();
        resolve(key);
      };
      const cancel = () => {
        form.removeEventListener('submit', done);
        dialog.removeEventListener('cancel', cancel);
        reject(
          new api.ApiError(
            'unauthorized',
            'No API key given: this sandboxd answers nothing ' +
              'without one. Reload the page to enter one.',
          ),
        );
      };
      form.addEventListener('submit', done);
      dialog.addEventListener('cancel', cancel);
      if (!dialog.open) dialog.showModal();
      input.focus();
    }),
);

// --- Script mode ------------------------------------------------------------------------------
const editor = createEditor($('editor'), {
  onRun: () => runScript(),
  onChange: (/** @type {string} */ code) => store.save(`code.${app.language.id}`, code),
});

const run = $('run', HTMLButtonElement);
let running = false;
async function runScript() {
  if (running || !app.language.id) return;
  running = true;
  run.disabled = true;
  run.textContent = 'Running…';
  const out = $('script-output');
  const lang = app.language;
  try {
    const result = await api.executeStateless(lang, editor.code());
    out.replaceChildren(renderResult(result, lang.limits));
    hideBanner();
  } catch (e) {
    out.replaceChildren(renderFailure(e instanceof Error ? e : { message: String(e) }));
  } finally {
    running = false;
    run.disabled = false;
    run.textContent = 'Run';
  }
}
run.addEventListener('click', runScript);

function fillExamples() {
  const select = $('example');
  select.replaceChildren();
  examplesFor(app.language.id).forEach(([name], i) =>
    select.append(el('option', { value: String(i) }, name)),
  );
}
$('example').addEventListener('change', () => {
  const example = examplesFor(app.language.id)[Number($('example', HTMLSelectElement).value)];
  if (example) editor.setCode(example[1]);
  $('script-output').replaceChildren();
});

// --- Languages --------------------------------------------------------------------------------
/**
 * Selects the language `id` (or the first available one when it is not) everywhere.
 * @param {unknown} id
 */
function selectLanguage(id) {
  const lang =
    app.languages.find((l) => l.id === id && l.available !== false) ||
    app.languages.find((l) => l.available !== false);
  if (!lang) return;
  app.language = lang;
  store.save('language', lang.id);
  $('language', HTMLSelectElement).value = lang.id;
  $('engine').textContent = lang.engine
    ? `${lang.engine}${lang.contexts ? '' : ' · stateless'}`
    : '';
  editor.setLanguage(lang.language || lang.id);
  fillExamples();
  const saved = store.load(`code.${lang.id}`, null);
  editor.setCode(typeof saved === 'string' ? saved : examplesFor(lang.id)[0][1]);
  $('script-output').replaceChildren();
  $('repl-prompt').textContent = `${lang.id}>`;
  app.repl.show();
  if (app.mode === 'repl') app.session.refresh();
  else app.session.render();
}
$('language').addEventListener('change', () =>
  selectLanguage($('language', HTMLSelectElement).value),
);

async function loadLanguages() {
  let answer;
  try {
    answer = await api.languages();
  } catch (e) {
    showBanner(
      `${e instanceof Error ? e.message : String(e)} The page needs sandboxd's GET /languages to start; reload when the server is back.`,
      'error',
    );
    $('language').replaceChildren(el('option', {}, 'unavailable'));
    return;
  }
  app.languages = Array.isArray(answer.languages) ? answer.languages : [];
  const select = $('language');
  select.replaceChildren();
  for (const l of app.languages) {
    const option = el(
      'option',
      { value: l.id },
      l.available === false ? `${l.id} (unavailable)` : l.id,
    );
    if (l.available === false) option.disabled = true;
    select.append(option);
  }
  if (app.languages.length === 0) {
    showBanner('This sandboxd serves no language.', 'error');
    return;
  }
  // A first visit opens on Python (the first available language when this build has none).
  selectLanguage(store.load('language', 'python'));
}

// --- Modes ------------------------------------------------------------------------------------
const MODES = ['script', 'repl', 'workspace'];
/**
 * @param {unknown} mode one of MODES (anything else: script)
 * @param {boolean} [focus] whether the mode's tab takes the focus
 */
function setMode(mode, focus = false) {
  app.mode = typeof mode === 'string' && MODES.includes(mode) ? mode : 'script';
  store.save('mode', app.mode);
  for (const m of MODES) {
    const tab = $(`tab-${m}`);
    const on = m === app.mode;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    $(`${m}-panel`).hidden = !on;
    if (on && focus) tab.focus();
  }
  if (app.mode === 'repl') {
    app.session.refresh();
    app.repl.scroll();
  }
  if (app.mode === 'workspace' && app.workspace.stale) app.workspace.refresh();
}
MODES.forEach((m, i) => {
  const tab = $(`tab-${m}`);
  tab.addEventListener('click', () => setMode(m));
  // Arrow keys move between tabs (the ARIA tabs pattern).
  tab.addEventListener('keydown', (e) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (step) {
      e.preventDefault();
      setMode(MODES[(i + step + MODES.length) % MODES.length], true);
    }
  });
});

// Ctrl/Cmd+Enter runs the script from anywhere in Script mode (the editor binds it too).
document.addEventListener('keydown', (e) => {
  if (
    e.key === 'Enter' &&
    (e.ctrlKey || e.metaKey) &&
    app.mode === 'script' &&
    !e.defaultPrevented
  ) {
    e.preventDefault();
    runScript();
  }
});
$('banner-close').addEventListener('click', hideBanner);

app.repl = new Repl(app);
app.session = new Session(app);
app.workspace = new Workspace(app);
setMode(store.load('mode', 'script'));
loadLanguages();
