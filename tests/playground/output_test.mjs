// Unit tests of what the Playground says of a result without a DOM (web/playground/src): a Python
// error in CPython's order, as `sandbox run` prints it (the wire answers are those of
// tests/cli/error_format_test.cc, the expected lines the CLI's); the limit errors explained with
// the numbers GET /languages reports, and without invented ones when it reports none; the
// session panel's snapshot size; the workspace's upload cap.
//
//   node --test tests/playground/output_test.mjs   (ctest: playground_unit_test)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

const { explain, formatBytes, pythonError } = await import('../../web/playground/src/output.js');
const { snapshotText } = await import('../../web/playground/src/session.js');
const { maxFileBytes } = await import('../../web/playground/src/workspace.js');

// The lines a Python error shows, the last one "Name: message" as the page renders it.
function shown(error) {
  const py = pythonError(error);
  return [...py.lines, py.message ? `${py.name}: ${py.message}` : py.name].join('\n') + '\n';
}

describe('Python errors in the native order', () => {
  test('"Traceback (most recent call last):", the frames oldest first, then the error', () => {
    const error = {
      name: 'ValueError',
      message: 'bad value',
      traceback: [
        'ValueError: bad value',
        '  File "<input>", line 3, in <module>',
        '  File "<input>", line 2, in f',
      ],
    };
    assert.equal(
      shown(error),
      'Traceback (most recent call last):\n' +
        '  File "<input>", line 3, in <module>\n' +
        '  File "<input>", line 2, in f\n' +
        'ValueError: bad value\n',
    );
    assert.equal(error.traceback.length, 3, 'the result kept in the log is not changed');
  });

  test('an empty message shows the name alone', () => {
    const error = {
      name: 'KeyboardInterrupt',
      message: '',
      traceback: ['KeyboardInterrupt: ', '  File "<input>", line 1, in <module>'],
    };
    assert.equal(
      shown(error),
      'Traceback (most recent call last):\n' +
        '  File "<input>", line 1, in <module>\n' +
        'KeyboardInterrupt\n',
    );
  });

  test('a SyntaxError: no Traceback line, the caret, and the message without its location', () => {
    const error = {
      name: 'SyntaxError',
      message: "'(' was never closed (<input>, line 1)",
      traceback: [
        "SyntaxError: '(' was never closed (<input>, line 1)",
        '  File "<input>", line 1',
        '    x = (',
        '        ^',
      ],
    };
    assert.equal(
      shown(error),
      '  File "<input>", line 1\n' +
        '    x = (\n' +
        '        ^\n' +
        "SyntaxError: '(' was never closed\n",
    );
  });

  test('a limit error has no frames: the error line alone', () => {
    const error = {
      name: 'ExecutionLimitError',
      message: 'Execution fuel exhausted',
      traceback: [],
    };
    assert.equal(shown(error), 'ExecutionLimitError: Execution fuel exhausted\n');
  });
});

describe('limit errors explained with the limits of /languages', () => {
  const limits = {
    codeBytes: 65536,
    requestBytes: 98304,
    fuel: 2000000000,
    memoryBytes: 134217728,
    outputBytes: 16384,
    outputChunks: 50,
    resultBytes: 8192,
    fileBytes: 1048576,
  };
  const limit = (message) => ({ name: 'ExecutionLimitError', message, traceback: [] });

  test('the numbers are those the server reports, not constants', () => {
    assert.match(
      explain(limit('Execution fuel exhausted'), limits),
      /\(2,000,000,000 fuel units\)/,
    );
    assert.match(
      explain(limit('Output limit exceeded'), limits),
      /\(16\.0 KiB or 50 pieces of stdout and stderr together\)/,
    );
    assert.match(
      explain(limit('Result limit exceeded'), limits),
      /\(over 8\.0 KiB once serialized\)/,
    );
    assert.match(
      explain({ name: 'MemoryError', message: 'out of memory' }, limits),
      /limit of 128\.0 MiB\./,
    );
  });

  test('without limits (a remote binding) the sentences name no number', () => {
    for (const message of [
      'Execution fuel exhausted',
      'Output limit exceeded',
      'Result limit exceeded',
    ]) {
      const text = explain(limit(message), null);
      assert.ok(text.length > 0);
      assert.doesNotMatch(text, /\d/, text);
    }
    assert.equal(
      explain({ name: 'MemoryError', message: '' }, null),
      'The program needed more memory than its limit.',
    );
  });

  test("a program's own error gets no explanation", () => {
    assert.equal(explain({ name: 'ValueError', message: 'bad value' }, limits), '');
  });
});

describe('sizes', () => {
  test('formatBytes', () => {
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(1536), '1.5 KiB');
    assert.equal(formatBytes(3 * 1024 * 1024), '3.0 MiB');
    assert.equal(formatBytes(undefined), '–');
  });

  test("the snapshot's stored size is the bytes its chunks take in the store", () => {
    assert.equal(
      snapshotText({
        pages: 40,
        bytes: 2621440,
        storedBytes: 655360,
        encodedBytes: 81920,
        stale: false,
      }),
      '2.5 MiB of memory, stored in 80.0 KiB',
    );
  });

  test('without encodedBytes, the decoded size is said for what it is, not a guess', () => {
    const text = snapshotText({ pages: 40, bytes: 2621440, storedBytes: 655360, stale: false });
    assert.equal(text, '2.5 MiB of memory, stored as 640.0 KiB of chunks before compression');
    assert.match(
      snapshotText({ pages: 1, bytes: 65536, storedBytes: 65536, stale: true }),
      /older than the live state$/,
    );
    assert.equal(snapshotText(null), 'none yet');
  });

  test('the upload cap is the fileBytes of /languages, none when it is not reported', () => {
    const lang = (limits) => ({
      id: 'x',
      binding: 'X',
      language: 'x',
      engine: 'x',
      contexts: true,
      limits,
    });
    assert.equal(maxFileBytes([lang(null), lang({ fileBytes: 2048 })]), 2048);
    assert.equal(maxFileBytes([lang(null), lang({ codeBytes: 1 })]), 0);
    assert.equal(maxFileBytes([]), 0);
  });
});
