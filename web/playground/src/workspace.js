// @ts-check
// The Workspace tab: the sandbox's /workspace through the files API (POST /sandboxes/{id}/files,
// docs/sandbox-api.md#files-api): browse, view, edit, create, upload (input or drag and drop),
// download and delete. Binary files are shown as such, never as mangled text.
import { byId, el, formatBytes } from './output.js';

/** @typedef {import('./api.js').FileEntry} FileEntry */
/** @typedef {import('./api.js').Language} Language */
/** @typedef {import('./main.js').App} App */

/**
 * What the view shows: a folder, or a file with what the files API said of it.
 * @typedef {{ path: string, type: 'file' | 'directory', isBinary?: boolean, mimeType?: string,
 *   size?: number }} Current
 */

/**
 * The per-file cap of the workspace (kMaxFileBytes) as GET /languages reports it
 * (docs/sandbox-api.md#languages, L2; the same for every language); 0 when no language reports
 * it (an older sandboxd, or only remote bindings), and then the server alone checks.
 * @param {Language[]} languages
 */
export function maxFileBytes(languages) {
  for (const l of languages) {
    const n = l.limits && l.limits.fileBytes;
    if (typeof n === 'number' && n > 0) return n;
  }
  return 0;
}

/** @param {Uint8Array} bytes */
function toBase64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

/** @param {string} text */
function fromBase64(text) {
  const s = atob(text);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}

/** @param {string} path */
function parentOf(path) {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export class Workspace {
  /** @param {App} app */
  constructor(app) {
    this.app = app;
    this.list = byId('ws-list');
    this.view = byId('ws-view');
    this.content = byId('ws-content', HTMLTextAreaElement);
    this.binary = byId('ws-binary');
    this.hidden = byId('ws-hidden', HTMLInputElement);
    this.target = '/workspace';
    /** @type {Current | null} */
    this.current = null;
    this.stale = true;
    /**
     * @param {string} id
     * @param {string} event
     * @param {(e: Event) => void} fn
     */
    const on = (id, event, fn) => byId(id).addEventListener(event, fn);
    on('ws-refresh', 'click', () => this.refresh());
    on('ws-hidden', 'change', () => this.refresh());
    on('ws-save', 'click', () => this.save());
    on('ws-download', 'click', () => this.download());
    on('ws-delete', 'click', () => this.remove());
    const upload = byId('ws-upload', HTMLInputElement);
    upload.addEventListener('change', () => {
      this.upload(upload.files);
      upload.value = '';
    });
    on('ws-new', 'submit', (e) => {
      e.preventDefault();
      this.create();
    });
    const drop = byId('ws-drop');
    drop.addEventListener('dragover', (e) => {
      e.preventDefault();
      drop.classList.add('dragging');
    });
    drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('dragging');
      if (e.dataTransfer && e.dataTransfer.files.length > 0) this.upload(e.dataTransfer.files);
    });
  }

  /** @param {Record<string, unknown>} request */
  files(request) {
    return this.app.api().files(request);
  }

  async refresh() {
    let answer;
    try {
      answer = await this.files({
        op: 'list',
        path: '/workspace',
        recursive: true,
        includeHidden: this.hidden.checked,
      });
    } catch (e) {
      this.app.failed(e);
      return;
    }
    this.stale = false;
    const entries = (answer.files || [])
      .slice()
      .sort((a, b) => a.absolutePath.localeCompare(b.absolutePath));
    this.list.replaceChildren();
    this.list.append(
      this.row({ absolutePath: '/workspace', name: '/workspace', type: 'directory' }, 0),
    );
    for (const f of entries) {
      this.list.append(this.row(f, (f.relativePath || f.name).split('/').length));
    }
    if (entries.length === 0) {
      this.list.append(
        el(
          'li',
          { class: 'hint' },
          'The workspace is empty: create or upload a file, or write one from a program.',
        ),
      );
    }
    byId('ws-target').textContent = this.target;
  }

  /**
   * @param {FileEntry} f
   * @param {number} depth
   */
  row(f, depth) {
    const dir = f.type === 'directory';
    const button = el(
      'button',
      {
        type: 'button',
        class: dir ? 'file dir' : 'file',
        'data-path': f.absolutePath,
        'aria-current': String(this.current && this.current.path === f.absolutePath),
      },
      dir ? `${f.name}/` : f.name,
    );
    button.style.paddingLeft = `${0.5 + depth * 1.1}rem`;
    button.addEventListener('click', () =>
      dir ? this.selectDir(f.absolutePath) : this.open(f.absolutePath),
    );
    const li = el('li', {}, button);
    if (!dir) li.append(el('span', { class: 'size' }, formatBytes(f.size)));
    return li;
  }

  /** @param {string} path */
  selectDir(path) {
    this.target = path;
    byId('ws-target').textContent = path;
    this.show({ path, type: 'directory' });
  }

  /** @param {Current} current */
  show(current) {
    this.current = current;
    this.view.hidden = false;
    byId('ws-view-path').textContent = current.path;
    const dir = current.type === 'directory';
    const root = current.path === '/workspace';
    byId('ws-save').hidden = dir || Boolean(current.isBinary);
    byId('ws-download').hidden = dir;
    byId('ws-delete').hidden = root;
    this.content.hidden = dir || Boolean(current.isBinary);
    this.binary.hidden = !current.isBinary;
    byId('ws-view-info').textContent = dir
      ? 'Folder: uploads go here.'
      : `${current.mimeType || ''}, ${formatBytes(current.size)}`;
    for (const b of this.list.querySelectorAll('button.file')) {
      if (!(b instanceof HTMLElement)) continue;
      b.setAttribute('aria-current', String(b.dataset.path === current.path));
    }
  }

  /** @param {string} path */
  async open(path) {
    let answer;
    try {
      answer = await this.files({ op: 'read', path });
    } catch (e) {
      this.app.failed(e);
      return;
    }
    const isBinary = Boolean(answer.isBinary);
    this.show({
      path: answer.path || path,
      type: 'file',
      isBinary,
      mimeType: answer.mimeType,
      size: answer.size,
    });
    if (isBinary) {
      this.binary.textContent =
        `Binary file (${answer.mimeType}, ${formatBytes(answer.size)}): ` +
        'not shown as text. Download it to open it.';
      this.content.value = '';
    } else {
      this.content.value = answer.content || '';
    }
  }

  async save() {
    if (!this.current || this.current.type !== 'file') return;
    try {
      await this.files({ op: 'write', path: this.current.path, content: this.content.value });
      this.app.notify(`Saved ${this.current.path}.`);
    } catch (e) {
      this.app.failed(e);
      return;
    }
    await this.refresh();
  }

  async download() {
    if (!this.current || this.current.type !== 'file') return;
    try {
      const answer = await this.files({ op: 'read', path: this.current.path, encoding: 'base64' });
      const blob = new Blob([fromBase64(answer.content || '')], {
        type: answer.mimeType || 'application/octet-stream',
      });
      const url = URL.createObjectURL(blob);
      const name = (answer.path || this.current.path).split('/').pop() || 'download';
      const a = el('a', { href: url, download: name });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (e) {
      this.app.failed(e);
    }
  }

  async remove() {
    if (!this.current || this.current.path === '/workspace') return;
    const what = this.current.type === 'directory' ? 'folder and everything in it' : 'file';
    if (!window.confirm(`Delete the ${what} ${this.current.path}?`)) return;
    try {
      await this.files({ op: 'delete', path: this.current.path, recursive: true });
      this.app.notify(`Deleted ${this.current.path}.`);
    } catch (e) {
      this.app.failed(e);
      return;
    }
    if (this.target.startsWith(this.current.path)) this.target = '/workspace';
    this.current = null;
    this.view.hidden = true;
    await this.refresh();
  }

  async create() {
    const input = byId('ws-new-path', HTMLInputElement);
    const raw = input.value.trim();
    if (!raw) return;
    const path = raw.startsWith('/') ? raw : `${this.target}/${raw}`;
    const dir = byId('ws-new-kind', HTMLSelectElement).value === 'dir';
    try {
      if (dir) {
        await this.files({ op: 'mkdir', path, recursive: true });
      } else {
        const parent = parentOf(path);
        if (parent !== '/workspace' && parent !== '/') {
          await this.files({ op: 'mkdir', path: parent, recursive: true });
        }
        await this.files({ op: 'write', path, content: '' });
      }
    } catch (e) {
      this.app.failed(e);
      return;
    }
    input.value = '';
    await this.refresh();
    if (dir) this.selectDir(path.replace(/\/+$/, ''));
    else {
      await this.open(path);
      this.content.focus();
    }
  }

  /** @param {FileList | null} fileList */
  async upload(fileList) {
    const files = Array.from(fileList || []);
    const max = maxFileBytes(this.app.languages);
    for (const file of files) {
      const path = `${this.target}/${file.name}`;
      if (max > 0 && file.size > max) {
        this.app.failed(
          new Error(
            `${file.name} is ${formatBytes(file.size)}: a workspace file ` +
              `may be at most ${formatBytes(max)}.`,
          ),
        );
        continue;
      }
      try {
        const bytes = new Uint8Array(await file.arrayBuffer());
        await this.files({ op: 'write', path, content: toBase64(bytes), encoding: 'base64' });
        this.app.notify(`Uploaded ${path}.`);
      } catch (e) {
        this.app.failed(e);
      }
    }
    await this.refresh();
  }
}
