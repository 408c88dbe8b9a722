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

// With a DirWatch: a report walks the roots only when an inotify event said
// something may have changed, and misses nothing a block wrote.
const { DirWatch } = require('../dir_watch');

function watched(limits = { maxFileBytes: 1000, maxFiles: 50 }) {
  const r = roots();
  const watch = new DirWatch();
  const tracker = new FileTracker(r, limits, watch);
  let walks = 0;
  const scan = tracker.scan.bind(tracker);
  tracker.scan = () => { ++walks; return scan(); };
  return { r, watch, tracker, walks: () => walks };
}

// What runExec does after a block: let the events in, then report.
async function report(t) {
  await t.watch.settle();
  return t.tracker.changes().map((c) => `${c.op} ${c.root}/${c.path}`).sort();
}

test('a block that touched no file costs no walk; one that did is reported in full', async () => {
  const t = watched();
  await t.tracker.writeInitial([]);
  assert.deepStrictEqual(await report(t), []);
  const before = t.walks();
  assert.deepStrictEqual(await report(t), []);
  assert.strictEqual(t.walks(), before, 'nothing changed: no walk');

  fs.writeFileSync(path.join(t.r.workspace, 'a.txt'), 'a');
  assert.deepStrictEqual(await report(t), ['write workspace/a.txt']);
  // A new nested folder, then a write into it in the next block: its watch was added.
  fs.mkdirSync(path.join(t.r.skills, 'tool', 'lib'), { recursive: true });
  fs.writeFileSync(path.join(t.r.skills, 'tool', 'lib', 'x.js'), '1');
  assert.deepStrictEqual(await report(t), ['write skills/tool/lib/x.js']);
  fs.writeFileSync(path.join(t.r.skills, 'tool', 'lib', 'x.js'), '22');
  assert.deepStrictEqual(await report(t), ['write skills/tool/lib/x.js']);
  await fs.promises.rm(path.join(t.r.skills, 'tool'), { recursive: true });
  fs.unlinkSync(path.join(t.r.workspace, 'a.txt'));
  assert.deepStrictEqual(await report(t), ['delete skills/tool/lib/x.js', 'delete workspace/a.txt']);
  const after = t.walks();
  assert.deepStrictEqual(await report(t), []);
  assert.strictEqual(t.walks(), after);
});

test('a folder removed and made again at the same path is watched again', async () => {
  const t = watched();
  await t.tracker.writeInitial([]);
  fs.mkdirSync(path.join(t.r.workspace, 'out'));
  fs.writeFileSync(path.join(t.r.workspace, 'out', 'a.txt'), 'a');
  assert.deepStrictEqual(await report(t), ['write workspace/out/a.txt']);
  fs.rmSync(path.join(t.r.workspace, 'out'), { recursive: true });
  fs.mkdirSync(path.join(t.r.workspace, 'out'));
  fs.writeFileSync(path.join(t.r.workspace, 'out', 'b.txt'), 'b');
  assert.deepStrictEqual(await report(t), ['delete workspace/out/a.txt', 'write workspace/out/b.txt']);
  fs.writeFileSync(path.join(t.r.workspace, 'out', 'c.txt'), 'c');
  assert.deepStrictEqual(await report(t), ['write workspace/out/c.txt'], 'the new folder has a watch of its own');
});

test('files left for the next report are reported without any new event', async () => {
  const t = watched({ maxFileBytes: 1000, maxFiles: 10, reportBytes: 700 });
  await t.tracker.writeInitial([]);
  await report(t);
  for (const name of ['a.bin', 'b.bin']) fs.writeFileSync(path.join(t.r.workspace, name), Buffer.alloc(600, 1));
  assert.strictEqual((await report(t)).length, 1);
  assert.strictEqual((await report(t)).length, 1, 'the deferred file comes in the next report');
  assert.deepStrictEqual(await report(t), []);
});

test('the runtime\'s own writes before any block leave the tree clean; later ones do not', async () => {
  const t = watched();
  await t.tracker.writeInitial([]);
  await report(t);
  await t.tracker.writeKnown([{ root: 'skills', path: 'examples/demo/SKILL.md', content: 'shared' }], true);
  assert.ok(t.watch.clean(), 'the pool\'s put before any block');
  fs.writeFileSync(path.join(t.r.skills, 'examples', 'demo', 'SKILL.md'), 'edited by code');
  assert.deepStrictEqual(await report(t), ['write skills/examples/demo/SKILL.md'], 'the new folder is watched');
  await t.tracker.writeKnown([{ root: 'workspace', path: 'obs/turn-1.txt', content: 'full text' }], false);
  await t.watch.settle();
  assert.ok(!t.watch.clean(), 'a put between blocks may race a block\'s late write: scan next time');
  assert.deepStrictEqual(await report(t), [], 'the put itself is not a change');
});

test('without working watches every report walks the roots, as without a DirWatch', async () => {
  const t = watched();
  await t.tracker.writeInitial([]);
  await report(t);
  t.watch.fail();
  const before = t.walks();
  assert.deepStrictEqual(await report(t), []);
  assert.strictEqual(t.walks(), before + 1);
  fs.writeFileSync(path.join(t.r.workspace, 'b.txt'), 'b');
  assert.deepStrictEqual(await report(t), ['write workspace/b.txt']);
});
