// The in-container runner for one-shot blocks (issue 3; part 2 replaces it with
// the REPL runtime). Reads a JavaScript block from stdin until end of file, runs
// it as the body of an async function (so top-level await and return work),
// prints a returned value that is not undefined, and exits: with the code's own
// process.exitCode (0 by default), or 1 when the block threw (the error goes to stderr).
'use strict';
const util = require('util');

const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', async () => {
  const code = Buffer.concat(chunks).toString('utf8');
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  try {
    const fn = new AsyncFunction('require', 'module', code);
    const value = await fn(require, module);
    if (value !== undefined) {
      process.stdout.write((typeof value === 'string' ? value : util.inspect(value, { depth: 6 })) + '\n');
    }
  } catch (err) {
    process.stderr.write((err && err.stack ? err.stack : String(err)) + '\n');
    process.exitCode = 1;
  }
});
