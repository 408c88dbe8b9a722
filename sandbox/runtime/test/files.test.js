'use strict';
// FileTracker on its own: what one report carries, and what waits for the next.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { FileTracker } = require('../files');

function roots() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'files-test-'));
  const r = { skills: path.join(base, 'skills'), workspace: path.join(base, 'workspace') };
  fs.mkdirSync(r.skills);
  fs.mkdirSync(r.workspace);
  return r;
}

test('files past the report budget wait for the next report instead of being lost', () => {
  const r = roots();
  const tracker = new FileTracker(r, { maxFileBytes: 1000, maxFiles: 10, reportBytes: 1500 });
  tracker.writeInitial([]);
  for (const name of ['a.bin', 'b.bin', 'c.bin']) fs.writeFileSync(path.join(r.workspace, name), Buffer.alloc(600, 1));
  const first = tracker.changes();
  assert.strictEqual(first.length, 2);
  assert.ok(first.every((c) => c.op === 'write' && c.content));
  const second = tracker.changes();
  assert.strictEqual(second.length, 1);
  assert.ok(!first.map((c) => c.path).includes(second[0].path));
  assert.deepStrictEqual(tracker.changes(), []);
});

test('a file over the per-file limit is reported as tooLarge without content', () => {
  const r = roots();
  const tracker = new FileTracker(r, { maxFileBytes: 10, maxFiles: 10 });
  tracker.writeInitial([]);
  fs.writeFileSync(path.join(r.skills, 'big.txt'), 'x'.repeat(11));
  const [change] = tracker.changes();
  assert.strictEqual(change.tooLarge, true);
  assert.strictEqual(change.content, undefined);
});
