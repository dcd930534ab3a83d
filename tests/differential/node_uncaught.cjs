// Preloaded by the differential test into node (`node --require`): prints an uncaught error as
// one "Name: message" block after the program's own stderr and exits with status 1, so the test
// can compare it with the sandbox's error (its name and message) without parsing node's source
// excerpts and stack frames. A thrown non-error shows as node's REPL shows it ("Uncaught 42").
'use strict';
const { inspect } = require('util');
const report = (e) => {
  const text = e instanceof Error ? (e.message === '' ? e.name : `${e.name}: ${e.message}`)
                                  : `Uncaught ${inspect(e)}`;
  process.stderr.write(`\n--- uncaught ---\n${text}\n`);
  process.exit(1);
};
process.on('uncaughtException', report);
process.on('unhandledRejection', report);
