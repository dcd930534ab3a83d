'use strict';
// End-to-end test of the Playground (docs/sandbox-api.md#playground) in Debian's headless
// chromium, driven by playwright-core, against a real sandboxd on loopback that this test starts
// (and restarts, on the same port and database). Screenshots go to --out on every run.
//
//   node playground_browser_test.cjs --sandboxd PATH --out DIR
// NODE_PATH must name the node_modules holding playwright-core (src/playground's npm ci).
/* global document -- the callbacks given to page.evaluate and waitForFunction run in the page */
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');

const args = {};
for (let i = 2; i < process.argv.length; i += 2)
  args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const CHROMIUM = process.env.SANDBOX_CHROMIUM || '/usr/bin/chromium';
if (!args.sandboxd || !args.out) {
  console.error('usage: playground_browser_test.cjs --sandboxd PATH --out DIR');
  process.exit(2);
}
if (!fs.existsSync(CHROMIUM)) {
  console.error(
    `${CHROMIUM} not found: install the Debian package chromium (scripts/bootstrap.sh)`,
  );
  process.exit(1);
}
const { chromium } = require('playwright-core');

fs.mkdirSync(args.out, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'playground-test-'));
// caret: 'initial' because hiding the caret injects an inline style, which the page's CSP
// refuses (and this test counts CSP violations).
const shot = (page, name) =>
  page.screenshot({ path: path.join(args.out, `${name}.png`), fullPage: true, caret: 'initial' });

// One sandboxd process; start() again after stop() reuses the port and the database.
class Sandboxd {
  constructor(name, extra = []) {
    this.name = name;
    this.data = path.join(tmp, name);
    this.extra = extra;
    this.port = 0;
    this.child = null;
  }

  start() {
    fs.mkdirSync(this.data, { recursive: true });
    const log = fs.openSync(path.join(args.out, `${this.name}.log`), 'a');
    const child = spawn(
      args.sandboxd,
      ['--listen', `127.0.0.1:${this.port}`, '--data', this.data, ...this.extra],
      { stdio: ['ignore', 'pipe', log] },
    );
    this.child = child;
    return new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`${this.name}: no Playground line in 60 s: ${out}`)),
        60000,
      );
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const m = out.match(/Playground: (http:\/\/127\.0\.0\.1:(\d+)\/)/);
        if (m && !this.url) {
          clearTimeout(timer);
          this.url = m[1];
          this.port = Number(m[2]);
          resolve(this.url);
        } else if (m) {
          clearTimeout(timer);
          resolve(this.url);
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited (${code}) before listening: ${out}`));
      });
    });
  }

  stop() {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.removeAllListeners('exit');
      child.on('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

let passed = 0;
let current = '';
let failed = 0;
async function step(name, fn) {
  current = name;
  try {
    await fn();
    passed += 1;
    console.log(`ok - ${name}`);
  } catch (e) {
    failed += 1;
    console.log(
      `not ok - ${name}\n  ${String((e && e.stack) || e)
        .split('\n')
        .join('\n  ')}`,
    );
    throw e;
  }
}

async function waitForResults(page, selector, count) {
  await page.waitForFunction(
    ([s, n]) => document.querySelectorAll(s).length >= n,
    [selector, count],
    { timeout: 60000 },
  );
  return page.locator(selector).nth(count - 1);
}

async function replRun(page, code) {
  const before = await page.locator('#repl-log .result-block').count();
  await page.fill('#repl-input', code);
  await page.press('#repl-input', 'Enter');
  return waitForResults(page, '#repl-log .result-block', before + 1);
}

async function main() {
  const server = new Sandboxd('sandboxd');
  const keyed = new Sandboxd('sandboxd-keyed', ['--api-key', 'playground-test-key']);
  let context = null;
  const external = [];
  const cspViolations = [];
  const pageErrors = [];
  try {
    const origin = (await server.start()).replace(/\/$/, '');

    await step(
      'sandboxd serves the page, its bundle and its headers; unknown paths stay 404',
      async () => {
        const page = await fetch(`${origin}/`);
        assert.strictEqual(page.status, 200);
        assert.match(page.headers.get('content-type'), /^text\/html/);
        assert.match(page.headers.get('content-security-policy'), /default-src 'none'/);
        assert.match(page.headers.get('content-security-policy'), /connect-src 'self'/);
        assert.strictEqual(page.headers.get('cache-control'), 'no-cache');
        assert.match(await page.text(), /<script src="playground.js"/);
        const again = await fetch(`${origin}/`, {
          headers: { 'if-none-match': page.headers.get('etag') },
        });
        assert.strictEqual(again.status, 304);
        const js = await fetch(`${origin}/playground.js`);
        assert.match(js.headers.get('content-type'), /^text\/javascript/);
        assert.ok((await js.text()).length > 10000);
        const css = await fetch(`${origin}/playground.css`);
        assert.match(css.headers.get('content-type'), /^text\/css/);
        const missing = await fetch(`${origin}/playground.map`);
        assert.strictEqual(missing.status, 404);
        const body = await missing.json();
        assert.strictEqual(body.code, 'VALIDATION_FAILED');
        assert.strictEqual(body.message, 'Not found');
        const post = await fetch(`${origin}/`, { method: 'POST', body: '{}' });
        assert.strictEqual(post.status, 405);
        assert.strictEqual(post.headers.get('allow'), 'GET');
      },
    );

    const languages = (await (await fetch(`${origin}/languages`)).json()).languages.filter(
      (l) => l.available,
    );
    assert.ok(
      languages.some((l) => l.id === 'lua'),
      'the test needs the lua engine',
    );

    const userDataDir = fs.mkdtempSync(path.join(tmp, 'chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    context.on('request', (r) => {
      const url = r.url();
      if (
        !url.startsWith(origin) &&
        !url.startsWith(keyed.url ? keyed.url.replace(/\/$/, '') : origin) &&
        !url.startsWith('data:') &&
        !url.startsWith('blob:')
      ) {
        external.push(url);
      }
    });
    const watch = (page) => {
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text()))
          cspViolations.push(`${current}: ${m.text()}`);
      });
      page.on('pageerror', (e) => pageErrors.push(String(e)));
    };
    const page = context.pages()[0] || (await context.newPage());
    watch(page);
    page.setDefaultTimeout(60000);
    await page.goto(`${origin}/`);
    await page.waitForSelector('#language option[value="lua"]', { state: 'attached' });

    await step('A first visit opens on Python', async () => {
      const expected = languages.some((l) => l.id === 'python') ? 'python' : languages[0].id;
      await page.waitForFunction(
        (id) =>
          document.getElementById('language').value === id &&
          document.getElementById('repl-prompt').textContent === `${id}>`,
        expected,
      );
    });

    await step('Script mode runs a program in each language of GET /languages', async () => {
      for (const [i, lang] of languages.entries()) {
        await page.selectOption('#language', lang.id);
        await page.waitForFunction(
          (id) => document.getElementById('repl-prompt').textContent === `${id}>`,
          lang.id,
        );
        if (i === 0) {
          // The keyboard path: Ctrl+Enter in the editor.
          await page.click('.cm-content');
          await page.keyboard.press('Control+Enter');
        } else {
          await page.click('#run');
        }
        const block = page.locator('#script-output .result-block');
        await block.waitFor();
        await page.waitForSelector('#run:not([disabled])');
        await shot(page, `script-${lang.id}`);
        assert.strictEqual(
          await block.locator('.out-error, .out-failure').count(),
          0,
          `${lang.id}: ${await block.innerText()}`,
        );
        assert.ok(
          (await block.locator('.out-stdout, .out-result').count()) > 0,
          `${lang.id} printed nothing: ${await block.innerText()}`,
        );
        assert.match(await block.locator('.out-meta').innerText(), /ms/);
      }
    });

    await step('an error shows its name, message and traceback', async () => {
      await page.selectOption('#language', 'lua');
      await page.selectOption('#example', { label: 'Error with a traceback' });
      await page.click('#run');
      const error = page.locator('#script-output .out-error');
      await error.waitFor();
      assert.match(
        await error.locator('.err-message').innerText(),
        /attempt to perform arithmetic|nil/,
      );
      assert.ok((await error.locator('.err-traceback').count()) === 1);
    });

    await step('a limit error is rendered and explained in plain words', async () => {
      await page.selectOption('#example', { label: 'Endless loop (fuel limit)' });
      await page.click('#run');
      const error = page.locator('#script-output .out-error');
      await error.waitFor({ timeout: 60000 });
      assert.strictEqual(await error.locator('.err-name').innerText(), 'ExecutionLimitError');
      const explained = await error.locator('.err-explain').innerText();
      assert.match(explained, /used up its fuel/);
      // The number is the one GET /languages reports, not a constant of the page.
      const lua = languages.find((l) => l.id === 'lua');
      assert.ok(
        explained.includes(
          `(${new Intl.NumberFormat('en-US').format(lua.limits.fuel)} fuel units)`,
        ),
        explained,
      );
      await shot(page, 'script-limit-error');
    });

    if (languages.some((l) => l.id === 'python')) {
      await step('a Python error reads as CPython prints it, oldest frame first', async () => {
        await page.selectOption('#language', 'python');
        await page.selectOption('#example', { label: 'Error with a traceback' });
        await page.click('#run');
        const traceback = page.locator('#script-output .out-error .err-traceback');
        await traceback.waitFor();
        assert.strictEqual(
          await traceback.innerText(),
          'Traceback (most recent call last):\n' +
            '  File "<input>", line 4, in <module>\n' +
            '  File "<input>", line 2, in ratio\n' +
            'ZeroDivisionError: division by zero',
        );
        await shot(page, 'script-python-error');
        await page.selectOption('#language', 'lua');
      });
    }

    await step('the mode tabs work with the keyboard', async () => {
      await page.focus('#tab-script');
      await page.keyboard.press('ArrowRight');
      assert.strictEqual(await page.getAttribute('#tab-repl', 'aria-selected'), 'true');
      assert.ok(await page.isVisible('#repl-panel'));
    });

    await step('REPL mode keeps a variable across a reload and a restart of sandboxd', async () => {
      await page.selectOption('#language', 'lua');
      await replRun(page, 'counter = 41');
      await page.reload();
      await page.waitForSelector('#repl-log .repl-input-line >> text=counter = 41');
      assert.ok(await page.isVisible('#repl-panel'), 'the mode survives the reload');
      await server.stop();
      const down = await replRun(page, 'counter');
      assert.match(await down.innerText(), /Cannot reach sandboxd/);
      await server.start();
      const answer = await replRun(page, 'counter + 1');
      assert.strictEqual(await answer.locator('.out-result').innerText(), '42');
      await page.waitForFunction(
        () => Number(document.getElementById('session-executions').textContent) >= 2,
      );
      // The bytes the snapshot's chunks take in the store, which sandboxd reports
      // (encodedBytes; docs/sandbox-api.md, PG4).
      assert.match(
        await page.innerText('#session-snapshot'),
        /^[0-9.]+ [KM]iB of memory, stored in [0-9.]+ (B|KiB|MiB)$/,
      );
      assert.match(await page.innerText('#session-expiry'), /wiped in|never/);
      // History: up brings the last submission back.
      await page.focus('#repl-input');
      await page.keyboard.press('ArrowUp');
      assert.strictEqual(await page.inputValue('#repl-input'), 'counter + 1');
      await page.fill('#repl-input', '');
      await shot(page, 'repl');
    });

    await step('resetting the context forgets the variable', async () => {
      await page.click('#reset-context');
      await page.waitForSelector('#repl-log .repl-note >> text=Context reset');
      const answer = await replRun(page, 'counter == nil');
      assert.strictEqual(await answer.locator('.out-result').innerText(), 'true');
    });

    await step(
      "a file made in the Workspace tab is read by a guest, and a guest's file appears",
      async () => {
        await page.click('#tab-workspace');
        await page.fill('#ws-new-path', 'notes/hello.txt');
        await page.click('#ws-new button[type=submit]');
        await page.waitForSelector('#ws-view-path >> text="/workspace/notes/hello.txt"');
        await page.fill('#ws-content', 'hello from the workspace tab');
        await page.click('#ws-save');
        await page.waitForSelector('#banner-text >> text=Saved /workspace/notes/hello.txt');
        await page.click('#tab-repl');
        // Python when this build has it (the example), Lua otherwise.
        const python = languages.some((l) => l.id === 'python');
        await page.selectOption('#language', python ? 'python' : 'lua');
        const read = await replRun(
          page,
          python
            ? 'open("/workspace/notes/hello.txt").read()'
            : 'io.open("/workspace/notes/hello.txt"):read("a")',
        );
        assert.match(await read.locator('.out-result').innerText(), /hello from the workspace tab/);
        await replRun(
          page,
          python
            ? 'with open("/workspace/from_guest.txt", "w") as f: f.write("written by a guest")'
            : 'local f = io.open("/workspace/from_guest.txt", "w") f:write("written by a guest") f:close()',
        );
        await page.click('#tab-workspace');
        await page.click('button[data-path="/workspace/from_guest.txt"]');
        await page.waitForFunction(
          () => document.getElementById('ws-content').value === 'written by a guest',
        );
        await shot(page, 'workspace');
      },
    );

    await step(
      'the Workspace tab uploads, shows a binary file as such, downloads and deletes',
      async () => {
        const bytes = Buffer.from([0, 1, 2, 255, 0, 7]);
        await page.setInputFiles('#ws-upload', {
          name: 'blob.bin',
          mimeType: 'application/octet-stream',
          buffer: bytes,
        });
        await page.click('button[data-path="/workspace/blob.bin"]');
        await page.waitForSelector('#ws-binary:not([hidden])');
        assert.match(await page.innerText('#ws-binary'), /Binary file/);
        assert.ok(!(await page.isVisible('#ws-content')));
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.click('#ws-download'),
        ]);
        assert.deepStrictEqual(fs.readFileSync(await download.path()), bytes);
        await shot(page, 'workspace-binary');
        page.once('dialog', (d) => d.accept());
        await page.click('#ws-delete');
        await page.waitForSelector('button[data-path="/workspace/blob.bin"]', {
          state: 'detached',
        });
      },
    );

    await step('with API keys the page asks for one and keeps it for the session', async () => {
      const keyedOrigin = (await keyed.start()).replace(/\/$/, '');
      const p = await context.newPage();
      watch(p);
      p.setDefaultTimeout(60000);
      await p.goto(`${keyedOrigin}/`);
      await p.waitForSelector('#key-dialog[open]');
      await p.fill('#key-input', 'wrong-key');
      await p.click('#key-form button[type=submit]');
      await p.waitForSelector('#key-message >> text=refused');
      await shot(p, 'api-key');
      await p.fill('#key-input', 'playground-test-key');
      await p.click('#key-form button[type=submit]');
      await p.waitForSelector('#language option[value="lua"]', { state: 'attached' });
      await p.reload();
      await p.waitForSelector('#language option[value="lua"]', { state: 'attached' });
      assert.ok(!(await p.isVisible('#key-dialog')), 'the key is kept across a reload');
      await p.close();
      await keyed.stop();
    });

    await step('the page fits a 390 px wide phone screen', async () => {
      const p = await context.newPage();
      watch(p);
      await p.setViewportSize({ width: 390, height: 844 });
      await p.goto(`${origin}/`);
      await p.waitForSelector('#language option[value="lua"]', { state: 'attached' });
      for (const mode of ['script', 'repl', 'workspace']) {
        await p.click(`#tab-${mode}`);
        await p.waitForTimeout(300);
        await shot(p, `phone-${mode}`);
        const width = await p.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= 390, `${mode}: the page is ${width} px wide`);
      }
      await p.click('#tab-script');
      const box = await p.locator('#run').boundingBox();
      assert.ok(box && box.x + box.width <= 390, 'Run is on screen');
      await p.close();
    });

    await step('no request left the origin, no CSP violation, no script error', async () => {
      assert.deepStrictEqual(external, []);
      assert.deepStrictEqual(cspViolations, []);
      assert.deepStrictEqual(pageErrors, []);
    });
  } finally {
    if (context) await context.close().catch(() => {});
    await server.stop();
    await keyed.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
    console.log(`${passed} passed, ${failed} failed`);
    console.log(`screenshots: ${args.out}`);
  }
}

main().then(
  () => process.exit(failed ? 1 : 0),
  (e) => {
    if (!failed) console.log(`error: ${(e && e.stack) || e}`);
    process.exit(1);
  },
);
