// The Playground (docs/sandbox-api.md#playground): a page served by sandboxd at / that talks to
// it only through the public HTTP API (api.js). Script mode runs stateless executions; REPL mode
// runs in this browser's sandbox (its id in local storage) with one code context per language;
// the Workspace tab edits the sandbox's files.
import * as api from './api.js';
import * as store from './store.js';
import { createEditor } from './editor.js';
import { examplesFor } from './examples.js';
import { el, renderFailure, renderResult } from './output.js';
import { Repl } from './repl.js';
import { Session } from './session.js';
import { Workspace } from './workspace.js';

const $ = (id) => document.getElementById(id);

const app = {
  sandboxId: store.sandboxId(),
  languages: [],
  language: { id: '', binding: '', language: '', engine: '', contexts: false, limits: null },
  mode: 'script',
  api() {
    return api.sandbox(this.sandboxId);
  },
  // After a REPL execution: the session and the workspace may have changed.
  executed() {
    hideBanner();
    this.session.refresh();
    this.workspace.stale = true;
    if (this.mode === 'workspace') this.workspace.refresh();
  },
  failed(error) {
    showBanner(error.message || String(error), 'error');
  },
  notify(message) {
    showBanner(message, 'info');
  },
};

function showBanner(message, kind) {
  $('banner-text').textContent = message;
  $('banner').dataset.kind = kind;
  $('banner').hidden = false;
}

function hideBanner() {
  $('banner').hidden = true;
}

// --- API key prompt ---------------------------------------------------------------------------
api.onUnauthorized((message) => new Promise((resolve, reject) => {
  const dialog = $('key-dialog');
  $('key-message').textContent = message;
  $('key-input').value = '';
  const form = $('key-form');
  const done = (e) => {
    e.preventDefault();
    const key = $('key-input').value.trim();
    if (!key) return;
    form.removeEventListener('submit', done);
    dialog.removeEventListener('cancel', cancel);
    dialog.close();
    resolve(key);
  };
  const cancel = () => {
    form.removeEventListener('submit', done);
    dialog.removeEventListener('cancel', cancel);
    reject(new api.ApiError('unauthorized', 'No API key given: this sandboxd answers nothing ' +
      'without one. Reload the page to enter one.'));
  };
  form.addEventListener('submit', done);
  dialog.addEventListener('cancel', cancel);
  if (!dialog.open) dialog.showModal();
  $('key-input').focus();
}));

// --- Script mode ------------------------------------------------------------------------------
const editor = createEditor($('editor'), {
  onRun: () => runScript(),
  onChange: (code) => store.save(`code.${app.language.id}`, code),
});

let running = false;
async function runScript() {
  if (running || !app.language.id) return;
  running = true;
  $('run').disabled = true;
  $('run').textContent = 'Running…';
  const out = $('script-output');
  const lang = app.language;
  try {
    const result = await api.executeStateless(lang.id, editor.code());
    out.replaceChildren(renderResult(result, lang.limits));
    hideBanner();
  } catch (e) {
    out.replaceChildren(renderFailure(e));
  } finally {
    running = false;
    $('run').disabled = false;
    $('run').textContent = 'Run';
  }
}
$('run').addEventListener('click', runScript);

function fillExamples() {
  const select = $('example');
  select.replaceChildren();
  examplesFor(app.language.id).forEach(([name], i) => select.append(el('option', { value: String(i) }, name)));
}
$('example').addEventListener('change', () => {
  const example = examplesFor(app.language.id)[Number($('example').value)];
  if (example) editor.setCode(example[1]);
  $('script-output').replaceChildren();
});

// --- Languages --------------------------------------------------------------------------------
function selectLanguage(id) {
  const lang = app.languages.find((l) => l.id === id && l.available !== false) ||
    app.languages.find((l) => l.available !== false);
  if (!lang) return;
  app.language = lang;
  store.save('language', lang.id);
  $('language').value = lang.id;
  $('engine').textContent = lang.engine ? `${lang.engine}${lang.contexts ? '' : ' · stateless'}` : '';
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
$('language').addEventListener('change', () => selectLanguage($('language').value));

async function loadLanguages() {
  let answer;
  try {
    answer = await api.languages();
  } catch (e) {
    showBanner(`${e.message} The page needs sandboxd's GET /languages to start; reload when the server is back.`, 'error');
    $('language').replaceChildren(el('option', {}, 'unavailable'));
    return;
  }
  app.languages = Array.isArray(answer.languages) ? answer.languages : [];
  const select = $('language');
  select.replaceChildren();
  for (const l of app.languages) {
    const option = el('option', { value: l.id }, l.available === false ? `${l.id} (unavailable)` : l.id);
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
function setMode(mode, focus = false) {
  app.mode = MODES.includes(mode) ? mode : 'script';
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
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && app.mode === 'script' && !e.defaultPrevented) {
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
