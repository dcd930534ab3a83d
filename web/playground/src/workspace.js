// The Workspace tab: the sandbox's /workspace through the files API (POST /sandboxes/{id}/files,
// docs/sandbox-api.md#files-api): browse, view, edit, create, upload (input or drag and drop),
// download and delete. Binary files are shown as such, never as mangled text.
import { el, formatBytes } from './output.js';

// The per-file cap of the workspace (kMaxFileBytes, docs/protocol.md#limits), checked here so an
// upload over it gets a clear message before it is sent.
const MAX_FILE_BYTES = 1024 * 1024;

function toBase64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

function fromBase64(text) {
  const s = atob(text);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}

function parentOf(path) {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export class Workspace {
  constructor(app) {
    this.app = app;
    this.list = document.getElementById('ws-list');
    this.view = document.getElementById('ws-view');
    this.content = document.getElementById('ws-content');
    this.binary = document.getElementById('ws-binary');
    this.target = '/workspace';
    this.current = null; // {path, type, isBinary, mimeType, size}
    this.stale = true;
    const on = (id, event, fn) => document.getElementById(id).addEventListener(event, fn);
    on('ws-refresh', 'click', () => this.refresh());
    on('ws-hidden', 'change', () => this.refresh());
    on('ws-save', 'click', () => this.save());
    on('ws-download', 'click', () => this.download());
    on('ws-delete', 'click', () => this.remove());
    on('ws-upload', 'change', (e) => {
      this.upload(e.target.files);
      e.target.value = '';
    });
    on('ws-new', 'submit', (e) => {
      e.preventDefault();
      this.create();
    });
    const drop = document.getElementById('ws-drop');
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

  files(request) {
    return this.app.api().files(request);
  }

  async refresh() {
    let answer;
    try {
      answer = await this.files({
        op: 'list', path: '/workspace', recursive: true,
        includeHidden: document.getElementById('ws-hidden').checked,
      });
    } catch (e) {
      this.app.failed(e);
      return;
    }
    this.stale = false;
    const entries = (answer.files || []).slice()
      .sort((a, b) => a.absolutePath.localeCompare(b.absolutePath));
    this.list.replaceChildren();
    this.list.append(this.row({ absolutePath: '/workspace', name: '/workspace', type: 'directory' }, 0));
    for (const f of entries) {
      this.list.append(this.row(f, f.relativePath.split('/').length));
    }
    if (entries.length === 0) {
      this.list.append(el('li', { class: 'hint' }, 'The workspace is empty: create or upload a file, or write one from a program.'));
    }
    document.getElementById('ws-target').textContent = this.target;
  }

  row(f, depth) {
    const dir = f.type === 'directory';
    const button = el('button', {
      type: 'button', class: dir ? 'file dir' : 'file', 'data-path': f.absolutePath,
      'aria-current': String(this.current && this.current.path === f.absolutePath),
    }, dir ? `${f.name}/` : f.name);
    button.style.paddingLeft = `${0.5 + depth * 1.1}rem`;
    button.addEventListener('click', () => (dir ? this.selectDir(f.absolutePath) : this.open(f.absolutePath)));
    const li = el('li', {}, button);
    if (!dir) li.append(el('span', { class: 'size' }, formatBytes(f.size)));
    return li;
  }

  selectDir(path) {
    this.target = path;
    document.getElementById('ws-target').textContent = path;
    this.show({ path, type: 'directory' });
  }

  show(current) {
    this.current = current;
    this.view.hidden = false;
    document.getElementById('ws-view-path').textContent = current.path;
    const dir = current.type === 'directory';
    const root = current.path === '/workspace';
    document.getElementById('ws-save').hidden = dir || current.isBinary;
    document.getElementById('ws-download').hidden = dir;
    document.getElementById('ws-delete').hidden = root;
    this.content.hidden = dir || current.isBinary;
    this.binary.hidden = !current.isBinary;
    document.getElementById('ws-view-info').textContent = dir
      ? 'Folder: uploads go here.'
      : `${current.mimeType || ''}, ${formatBytes(current.size)}`;
    for (const b of this.list.querySelectorAll('button.file')) {
      b.setAttribute('aria-current', String(b.dataset.path === current.path));
    }
  }

  async open(path) {
    let answer;
    try {
      answer = await this.files({ op: 'read', path });
    } catch (e) {
      this.app.failed(e);
      return;
    }
    const isBinary = Boolean(answer.isBinary);
    this.show({ path: answer.path, type: 'file', isBinary, mimeType: answer.mimeType, size: answer.size });
    if (isBinary) {
      this.binary.textContent = `Binary file (${answer.mimeType}, ${formatBytes(answer.size)}): ` +
        'not shown as text. Download it to open it.';
      this.content.value = '';
    } else {
      this.content.value = answer.content;
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
      const blob = new Blob([fromBase64(answer.content)], { type: answer.mimeType || 'application/octet-stream' });
      const url = URL.createObjectURL(blob);
      const a = el('a', { href: url, download: answer.path.split('/').pop() });
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
    const input = document.getElementById('ws-new-path');
    const raw = input.value.trim();
    if (!raw) return;
    const path = raw.startsWith('/') ? raw : `${this.target}/${raw}`;
    const dir = document.getElementById('ws-new-kind').value === 'dir';
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

  async upload(fileList) {
    const files = Array.from(fileList || []);
    for (const file of files) {
      const path = `${this.target}/${file.name}`;
      if (file.size > MAX_FILE_BYTES) {
        this.app.failed(new Error(`${file.name} is ${formatBytes(file.size)}: a workspace file ` +
          `may be at most ${formatBytes(MAX_FILE_BYTES)}.`));
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
