'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { RuntimeClient } = require('./runtime_client');

async function withRuntime(options, fn) {
  const rt = new RuntimeClient(options);
  try {
    await rt.ready();
    rt.init(options.init || {});
    await fn(rt);
  } finally {
    rt.close();
  }
}

test('says ready with its node version', async () => {
  const rt = new RuntimeClient();
  try {
    const ready = await rt.ready();
    assert.match(ready.node, /^v\d+/);
  } finally {
    rt.close();
  }
});

test('frames sent before ready wait for the warm-up, which sends nothing of its own', async () => {
  const rt = new RuntimeClient();
  try {
    rt.init();  // at once, as `docker run -i` with frames on stdin does
    const done = await rt.exec('return [1 + 1, typeof warm]');
    assert.equal(done.ok, true);
    assert.deepEqual(done.value, [2, 'undefined']);  // nothing of the warm-up's blocks is left
    // Only `ready`, then the answer: the warm-up's own blocks said nothing.
    assert.deepEqual(rt.frames.map((f) => f.type), ['ready', 'done']);
  } finally {
    rt.close();
  }
});

test('top-level await and return give the result', async () => {
  await withRuntime({}, async (rt) => {
    const done = await rt.exec('await utils.sleep(5);\nreturn {sum: 1 + 1}');
    assert.equal(done.ok, true);
    assert.deepEqual(done.value, { sum: 2 });
  });
});

test('a block without return has no value', async () => {
  await withRuntime({}, async (rt) => {
    const done = await rt.exec('const x = 1;');
    assert.equal(done.ok, true);
    assert.equal('value' in done, false);
  });
});

test('declarations of one block are visible in the next', async () => {
  await withRuntime({}, async (rt) => {
    const first = await rt.exec([
      'const total = 40;',
      'let { a, b: [second] } = { a: 1, b: [2] };',
      'function add(x, y) { return x + y }',
      'class Counter { constructor() { this.n = 0 } inc() { return ++this.n } }',
      'var seen = new Set([1]);',
      'return "defined"',
    ].join('\n'));
    assert.equal(first.ok, true, JSON.stringify(first));
    const second = await rt.exec('const c = new Counter(); c.inc();\nreturn [add(total, second), a, c.inc(), seen.has(1)]');
    assert.deepEqual(second.value, [42, 1, 2, true]);
    // Redeclaring in a later block is allowed, as in a notebook.
    const third = await rt.exec('const total = 1; return total + second');
    assert.deepEqual(third.value, 3);
  });
});

test('declarations survive a block that throws after them', async () => {
  await withRuntime({}, async (rt) => {
    const failed = await rt.exec('const kept = "yes";\nthrow new Error("late")');
    assert.equal(failed.ok, false);
    assert.equal((await rt.exec('return kept')).value, 'yes');
  });
});

test('console output becomes log frames, capped per exec', async () => {
  await withRuntime({ init: { limits: { logBytes: 50 } } }, async (rt) => {
    const done = await rt.exec('console.log("a", {b: 1}); console.error("bad"); console.log("x".repeat(100)); return 1');
    assert.equal(done.ok, true);
    const texts = done.logs.map((l) => `${l.level}:${l.text}`);
    assert.equal(texts[0], 'info:a { b: 1 }');
    assert.equal(texts[1], 'error:bad');
    assert.match(texts[texts.length - 1], /truncated at 50 bytes/);
    const total = done.logs.slice(0, -1).reduce((n, l) => n + Buffer.byteLength(l.text), 0);
    assert.ok(total <= 50, `logged ${total} bytes`);
    // The cap is per exec: the next block logs again.
    const next = await rt.exec('console.log("again")');
    assert.equal(next.logs[0].text, 'again');
  });
});

test('errors carry name, message and a stack of the agent code only', async () => {
  await withRuntime({}, async (rt) => {
    const done = await rt.exec('function inner() {\n  throw new RangeError("out of range");\n}\ninner();');
    assert.equal(done.ok, false);
    assert.equal(done.error.name, 'RangeError');
    assert.equal(done.error.message, 'out of range');
    const frames = done.error.stack.split('\n').slice(1);
    assert.ok(frames.length >= 2);
    for (const f of frames) assert.match(f, /agent-code\.js:[1-4]:/);
    assert.match(frames[0], /agent-code\.js:2:/);
  });
});

test('syntax errors and thrown non-errors are reported', async () => {
  await withRuntime({}, async (rt) => {
    const syntax = await rt.exec('return (;');
    assert.equal(syntax.ok, false);
    assert.equal(syntax.error.name, 'SyntaxError');
    const thrown = await rt.exec('throw 42');
    assert.match(thrown.error.message, /non-Error value thrown: 42/);
  });
});

test('a return value JSON cannot carry is a clear error', async () => {
  await withRuntime({}, async (rt) => {
    for (const [code, fragment] of [
      ['return new Map([[1, 2]])', 'value is a Map'],
      ['return {f: () => 1}', 'value.f is a function'],
      ['const o = {}; o.self = o; return o', 'value.self is circular'],
      ['return {n: 10n}', 'value.n is a bigint'],
      ['return [1, NaN]', 'value[1] is NaN'],
    ]) {
      const done = await rt.exec(code);
      assert.equal(done.ok, false, code);
      assert.match(done.error.message, new RegExp(`not JSON-serialisable: ${fragment.replace(/[[\]]/g, '\\$&')}`), code);
    }
    const date = await rt.exec('return {when: new Date(0)}');
    assert.deepEqual(date.value, { when: '1970-01-01T00:00:00.000Z' });
  });
});

// The host refuses frames nested past 256 levels as a protocol error and gives
// up the sandbox; the runtime refuses such values itself, so code can act on it.
test('values nested too deep for a frame are refused with a message, not sent', async () => {
  const onCall = (frame) => ({ ok: true, result: { echoed: frame.args } });
  await withRuntime({ onCall }, async (rt) => {
    const deep = 'let v = 1; for (let i = 0; i < 300; i++) v = [v];';
    const returned = await rt.exec(`${deep}\nreturn {v}`);
    assert.equal(returned.ok, false);
    assert.match(returned.error.message, /not JSON-serialisable: value\.v(\[0\])+ nests deeper than 250 levels/);
    const called = await rt.exec(`${deep}\ntry { await callMCPTool("t__echo", {v}) } catch (e) { return {name: e.name, code: e.code, message: e.message} }`);
    assert.equal(called.ok, true, JSON.stringify(called.error));
    assert.deepEqual({ ...called.value, message: undefined }, { name: 'MCPToolError', code: 'bad_call', message: undefined });
    assert.match(called.value.message, /the arguments of t__echo nest deeper than 250 levels/);
    assert.equal(called.calls.length, 0);  // no frame went out
    const thrown = await rt.exec(`${deep}\nconst e = new Error('deep data'); e.data = v; throw e`);
    assert.equal(thrown.ok, false);
    assert.equal(thrown.error.message, 'deep data');
    assert.equal('data' in thrown.error, false);
    // 200 levels are a value like any other.
    const fine = await rt.exec('let w = 1; for (let i = 0; i < 200; i++) w = [w];\nreturn (await callMCPTool("t__echo", {w})).echoed.w.length');
    assert.equal(fine.ok, true, JSON.stringify(fine.error));
    assert.equal(fine.value, 1);
  });
});

test('helpers call the host and get replies', async () => {
  const onCall = (frame) => {
    if (frame.op === 'list_tools') return { ok: true, result: [{ name: 'fs__read_file', description: `q=${frame.args.query}` }] };
    if (frame.op === 'tool_details') return { ok: true, result: { name: frame.name, inputSchema: { type: 'object' } } };
    if (frame.name === 'fs__fail') return { ok: false, error: { code: -32602, message: 'bad path', data: { path: '/x' } } };
    return { ok: true, result: { echoed: frame.args } };
  };
  await withRuntime({ onCall }, async (rt) => {
    const done = await rt.exec([
      'const tools = await list_mcp_tools("file");',
      'const details = await get_mcp_tool_details(tools[0].name);',
      'const echoed = await callMCPTool("fs__echo", {text: "hi"});',
      'let failure;',
      'try { await callMCPTool("fs__fail", {}) } catch (e) { failure = {name: e.name, code: e.code, message: e.message, data: e.data} }',
      'return {tools, details, echoed, failure}',
    ].join('\n'));
    assert.equal(done.ok, true, JSON.stringify(done.error));
    assert.equal(done.value.tools[0].description, 'q=file');
    assert.equal(done.value.details.name, 'fs__read_file');
    assert.deepEqual(done.value.echoed, { echoed: { text: 'hi' } });
    assert.deepEqual(done.value.failure, { name: 'MCPToolError', code: -32602, message: 'bad path', data: { path: '/x' } });
    assert.deepEqual(done.calls.map((c) => c.op), ['list_tools', 'tool_details', 'call_tool', 'call_tool']);
    for (const c of done.calls) assert.equal(c.exec, done.exec);
  });
});

test('readMCPResource takes a resource_link as a tool returned it, or a server and a uri', async () => {
  const onCall = (frame) => {
    if (frame.op === 'call_tool') return { ok: true, result: { type: 'resource_link', uri: 'test://a', name: 'A', server: 'docs' } };
    return { ok: true, result: { uri: frame.args.uri, text: `from ${frame.name}` } };
  };
  await withRuntime({ onCall }, async (rt) => {
    const done = await rt.exec([
      'const link = await callMCPTool("docs__find", {});',
      'return [await readMCPResource(link), await readMCPResource("other", "test://b")]',
    ].join('\n'));
    assert.equal(done.ok, true, JSON.stringify(done.error));
    assert.deepEqual(done.value, [{ uri: 'test://a', text: 'from docs' }, { uri: 'test://b', text: 'from other' }]);
    assert.deepEqual(done.calls.map((c) => [c.op, c.name, c.args]),
                     [['call_tool', 'docs__find', {}], ['read_resource', 'docs', { uri: 'test://a' }],
                      ['read_resource', 'other', { uri: 'test://b' }]]);
  });
});

test('concurrent calls are all in flight before any reply', async () => {
  let release;
  const gate = new Promise((r) => { release = r; });
  let seen = 0;
  const onCall = async (frame) => {
    if (++seen === 5) release();
    await gate;
    return { ok: true, result: frame.args.i };
  };
  await withRuntime({ onCall }, async (rt) => {
    const done = await rt.exec('return await Promise.all([0,1,2,3,4].map((i) => callMCPTool("t__echo", {i})))');
    assert.deepEqual(done.value, [0, 1, 2, 3, 4]);
  });
});

test('init files land in /skills and /workspace and skills can be required', async () => {
  const files = [
    { root: 'skills', path: 'math/index.js', content: 'module.exports = { triple: (x) => 3 * x };' },
    { root: 'workspace', path: 'data/in.txt', content: Buffer.from('hello').toString('base64'), encoding: 'base64' },
  ];
  await withRuntime({ init: { files } }, async (rt) => {
    const code = `const { triple } = require(${JSON.stringify(rt.skills + '/math')});\n` +
      `return [triple(2), await fs.readFile(${JSON.stringify(rt.workspace + '/data/in.txt')}, 'utf8')]`;
    const done = await rt.exec(code);
    assert.deepEqual(done.value, [6, 'hello']);
    assert.deepEqual(done.files, []); // nothing changed
  });
});

test('changed files are reported after each exec', async () => {
  const files = [{ root: 'workspace', path: 'old.txt', content: 'old' }];
  await withRuntime({ init: { files } }, async (rt) => {
    const ws = JSON.stringify(rt.workspace);
    const sk = JSON.stringify(rt.skills);
    const done = await rt.exec(`
      await fs.mkdir(${sk} + '/greet', {recursive: true});
      await fs.writeFile(${sk} + '/greet/SKILL.md', '---\\nname: greet\\n---\\n');
      await fs.rm(${ws} + '/old.txt');
      await fs.symlink('/etc/passwd', ${ws} + '/link');`);
    assert.equal(done.ok, true, JSON.stringify(done.error));
    const byPath = Object.fromEntries(done.files.map((f) => [`${f.root}/${f.path}`, f]));
    assert.equal(byPath['skills/greet/SKILL.md'].op, 'write');
    assert.equal(Buffer.from(byPath['skills/greet/SKILL.md'].content, 'base64').toString(), '---\nname: greet\n---\n');
    assert.equal(byPath['workspace/old.txt'].op, 'delete');
    assert.deepEqual(byPath['workspace/link'], { root: 'workspace', path: 'link', op: 'symlink', target: '/etc/passwd' });
    // Unchanged files are not reported again, and a symlink is reported once.
    const again = await rt.exec('return 1');
    assert.deepEqual(again.files, []);
  });
});

test('an oversized file is reported without its content', async () => {
  await withRuntime({ init: { limits: { maxFileBytes: 10 } } }, async (rt) => {
    const done = await rt.exec(`await fs.writeFile(${JSON.stringify(rt.workspace + '/big.bin')}, 'x'.repeat(11))`);
    assert.deepEqual(done.files, [{ root: 'workspace', path: 'big.bin', op: 'write', size: 11, tooLarge: true }]);
  });
});

test('a stray rejection from an earlier block does not kill the runtime', async () => {
  await withRuntime({}, async (rt) => {
    await rt.exec('setTimeout(() => { throw new Error("later") }, 1); Promise.reject(new Error("nobody waits"));');
    await new Promise((r) => setTimeout(r, 50));
    const done = await rt.exec('return "alive"');
    assert.equal(done.value, 'alive');
  });
});

test('lines that are not JSON are ignored and stop ends the process', async () => {
  const rt = new RuntimeClient();
  try {
    await rt.ready();
    rt.child.stdin.write('this is not json\n');
    rt.init();
    assert.equal((await rt.exec('return 7')).value, 7);
    const exited = new Promise((r) => rt.child.on('exit', r));
    rt.send({ type: 'stop' });
    assert.equal(await exited, 0);
    assert.match(rt.stderr, /not JSON/);
  } finally {
    rt.close();
  }
});

test('output and calls of a finished block are dropped, not taken for the next block', async () => {
  const calls = [];
  const onCall = (frame) => { calls.push(frame); return { ok: true, result: 'served' }; };
  await withRuntime({ onCall }, async (rt) => {
    // A timer of block 1 that fires while block 2 runs: it still speaks as block 1.
    const first = await rt.exec([
      'globalThis.late = {};',
      'setTimeout(async () => {',
      '  console.log("late output");',
      '  try { late.value = await callMCPTool("t__echo", {}) } catch (e) { late.error = {name: e.name, code: e.code, message: e.message} }',
      '}, 30);',
      'return 1',
    ].join('\n'));
    assert.equal(first.value, 1);
    const second = await rt.exec('await utils.sleep(100);\nreturn late');
    assert.equal(second.ok, true, JSON.stringify(second.error));
    assert.deepEqual(second.value.error, {
      name: 'MCPToolError', code: 'stale_call', message: 'this call comes from a block that has already finished',
    });
    assert.deepEqual(second.logs, []);
    assert.deepEqual(calls, [], 'no call frame reached the host');
    assert.equal(rt.frames.filter((f) => f.type === 'log').length, 0, 'no log frame at all');
  });
});

test('a block keeps its own calls and output across awaits and timers', async () => {
  const onCall = (frame) => ({ ok: true, result: frame.args.i });
  await withRuntime({ onCall }, async (rt) => {
    const done = await rt.exec([
      'const later = await new Promise((resolve) => setTimeout(async () => {',
      '  console.log("from a timer of this block");',
      '  resolve(await callMCPTool("t__echo", {i: 7}));',
      '}, 5));',
      'return later',
    ].join('\n'));
    assert.equal(done.value, 7);
    assert.deepEqual(done.logs.map((l) => l.text), ['from a timer of this block']);
    assert.equal(done.calls.length, 1);
  });
});

test('files put before init (the pool\'s shared skills) and init\'s own are on disk, and only real changes are reported', async () => {
  const rt = new RuntimeClient();
  try {
    await rt.ready();
    rt.send({ type: 'put', id: 'prime', files: [{ root: 'skills', path: 'examples/demo/SKILL.md', content: 'shared' }] });
    const primed = await rt.next((f) => f.type === 'done' && f.exec === 'prime');
    assert.equal(primed.ok, true, JSON.stringify(primed.error));
    rt.init({ files: [{ root: 'skills', path: 'mine/index.js', content: 'exports.x = 1;' }] });
    const read = await rt.exec(`return [await fs.readFile(${JSON.stringify(rt.skills + '/examples/demo/SKILL.md')}, 'utf8'), await fs.readFile(${JSON.stringify(rt.skills + '/mine/index.js')}, 'utf8')]`);
    assert.equal(read.ok, true, JSON.stringify(read.error));
    assert.deepEqual(read.value, ['shared', 'exports.x = 1;']);
    assert.deepEqual(read.files, [], 'neither the put nor the init files count as changes');
    const edit = await rt.exec(`await fs.writeFile(${JSON.stringify(rt.skills + '/examples/demo/SKILL.md')}, 'edited'); await fs.writeFile(${JSON.stringify(rt.skills + '/mine/index.js')}, 'exports.x = 2;')`);
    assert.deepEqual(edit.files.map((f) => f.path).sort(), ['examples/demo/SKILL.md', 'mine/index.js']);
  } finally {
    rt.close();
  }
});

test('put writes files with the runtime\'s own fs, whatever the code redefined', async () => {
  await withRuntime({}, async (rt) => {
    // The agent's code takes the name `fs` for itself (the callback API, which
    // a harness block calling fs.writeFile(path, text) without a callback breaks on).
    const shadow = await rt.exec('const fs = require("fs");\nreturn typeof fs.writeFileSync');
    assert.equal(shadow.value, 'function');
    rt.send({ type: 'put', id: 'p1', files: [{ root: 'workspace', path: 'observations/turn-1.txt', content: Buffer.from('full text').toString('base64'), encoding: 'base64' }] });
    const put = await rt.next((f) => f.type === 'done' && f.exec === 'p1');
    assert.equal(put.ok, true, JSON.stringify(put.error));
    const read = await rt.exec(`return fs.readFileSync(${JSON.stringify(rt.workspace + '/observations/turn-1.txt')}, 'utf8')`);
    assert.equal(read.value, 'full text');
    assert.deepEqual(read.files, [], 'a file the host put is not reported back as a change');
    rt.send({ type: 'put', id: 'p2', files: [{ root: 'workspace', path: '../escape.txt', content: '' }] });
    const refused = await rt.next((f) => f.type === 'done' && f.exec === 'p2');
    assert.equal(refused.ok, false);
    assert.match(refused.error.message, /escapes workspace/);
  });
});
