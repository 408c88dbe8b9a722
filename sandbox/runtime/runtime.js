'use strict';
// The in-container runtime: a REPL that speaks NDJSON frames over stdin and
// stdout (protocol in docs/architecture/runtime-protocol.md), or over its call
// socket once the host sends `link`. It boots, says `ready`, takes `init`
// (session, limits, files), then runs each `exec` as the body of an async
// function in one persistent vm context, so `await` and `return` work at top
// level and top-level declarations of one block are visible in the next.
const vm = require('vm');
const util = require('util');
const fsp = require('fs/promises');
const crypto = require('crypto');
const { createRequire } = require('module');
const { AsyncLocalStorage } = require('async_hooks');
const { topLevelDeclarations } = require('./declarations');
const { jsonProblem, describeError, nestsTooDeep, MAX_VALUE_DEPTH } = require('./serialize');
const { FileTracker } = require('./files');
const { DirWatch } = require('./dir_watch');
const { CallSocket } = require('./call_socket');

const FILENAME = 'agent-code.js';
const ROOTS = {
  skills: process.env.SANDBOX_SKILLS_DIR || '/skills',
  workspace: process.env.SANDBOX_WORKSPACE_DIR || '/workspace',
};
const DEFAULT_LIMITS = { logBytes: 64 * 1024, maxFileBytes: 1024 * 1024, maxFiles: 200, frameBytes: 16 * 1024 * 1024 };

let limits = { ...DEFAULT_LIMITS };
// Tells the trackers whether a block changed any file (no walk after a block that did not).
const dirWatch = new DirWatch();
let tracker = new FileTracker(ROOTS, limits, dirWatch);
let session = null;
let currentExec = null;
// Which block a piece of code belongs to: every block runs inside
// blockScope.run(id), and timers and promises it creates inherit that id. So
// a timer left by block x1 that fires while x2 runs still speaks as x1, and
// its output and calls are refused as stale instead of being taken for x2's.
const blockScope = new AsyncLocalStorage();
let logState = { bytes: 0, truncated: false };
let callSeq = 0;
const pendingCalls = new Map();
let link = null;  // the CallSocket once the host sent `link`
const exportNonce = crypto.randomBytes(6).toString('hex');

let warming = true;  // until `ready`: the warm-up's frames go nowhere (see warmUp)

// Every frame goes to the host on the call socket once linked, else on stdout.
function sendLine(text) {
  if (warming) return;
  if (link && link.sendLine(text)) return;
  process.stdout.write(text + '\n');
}
function send(frame) {
  sendLine(JSON.stringify(frame));
}

// True when the calling code belongs to the block that is running now.
function inLiveBlock() {
  return currentExec !== null && blockScope.getStore() === currentExec;
}

// console.* inside agent code becomes `log` frames, capped per exec. Output
// of a block that has finished is dropped: nobody reads it any more.
function emitLog(level, args) {
  if (!inLiveBlock() || logState.truncated) return;
  let text = util.format(...args);
  const room = limits.logBytes - logState.bytes;
  if (Buffer.byteLength(text) > room) {
    text = Buffer.from(text).subarray(0, Math.max(0, room)).toString('utf8');
    logState.truncated = true;
    if (text) send({ type: 'log', exec: currentExec, level, text });
    send({ type: 'log', exec: currentExec, level: 'warn', text: `[log output truncated at ${limits.logBytes} bytes]` });
    return;
  }
  logState.bytes += Buffer.byteLength(text);
  send({ type: 'log', exec: currentExec, level, text });
}

// One request to the host; resolves with its reply. A call from a block that
// has finished (a timer, a forgotten promise) is refused here at once, as the
// host would refuse it, without a frame.
function callHost(op, fields) {
  if (!inLiveBlock()) {
    const err = new Error('this call comes from a block that has already finished');
    err.name = 'MCPToolError';
    err.code = 'stale_call';
    return Promise.reject(err);
  }
  const id = ++callSeq;
  return new Promise((resolve, reject) => {
    pendingCalls.set(id, { resolve, reject });
    send({ type: 'call', id, exec: currentExec, op, ...fields });
  });
}

// `link` {socket, token}: move every frame onto the call socket. If it
// cannot connect, frames stay on stdio (the host gives up on the socket too).
function runLink(frame) {
  if (link || !frame.socket) return;
  link = new CallSocket(frame, {
    onFrame,
    onFail: (unsent) => {
      link = null;
      for (const line of unsent) process.stdout.write(line + '\n');
    },
    // The host hung up: as when stdin ends.
    onClose: () => { queue = queue.then(() => process.exit(0)); },
  });
}

function onReply(frame) {
  const pending = pendingCalls.get(frame.id);
  if (!pending) return;
  pendingCalls.delete(frame.id);
  if (frame.ok) return pending.resolve(frame.result);
  const e = frame.error || {};
  const err = new Error(e.message || 'tool call failed');
  err.name = e.name || 'MCPToolError';
  if (e.code !== undefined) err.code = e.code;
  if (e.data !== undefined) err.data = e.data;
  pending.reject(err);
}

const utils = Object.freeze({
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  // JSON.parse that returns `fallback` instead of throwing.
  parseJSON: (text, fallback = null) => { try { return JSON.parse(text); } catch { return fallback; } },
  toJSON: (value, indent = 2) => JSON.stringify(value, null, indent),
  // First n characters, with a note of how much was cut.
  truncate: (text, n = 1000) => (String(text).length <= n ? String(text) : `${String(text).slice(0, n)}… [${String(text).length - n} more]`),
  chunk: (array, size) => { const out = []; for (let i = 0; i < array.length; i += size) out.push(array.slice(i, i + size)); return out; },
});

function makeContext() {
  const level = (name) => (...args) => emitLog(name, args);
  const sandboxConsole = { log: level('info'), info: level('info'), debug: level('debug'), warn: level('warn'), error: level('error') };
  const globals = {
    console: sandboxConsole,
    list_mcp_tools: (query) => callHost('list_tools', { args: query === undefined ? {} : { query: String(query) } }),
    get_mcp_tool_details: (name) => callHost('tool_details', { name: String(name) }),
    callMCPTool: (name, args = {}) => {
      if (nestsTooDeep(args)) {
        const err = new Error(`the arguments of ${String(name)} nest deeper than ${MAX_VALUE_DEPTH} levels of arrays and objects; send a flatter value`);
        err.name = 'MCPToolError';
        err.code = 'bad_call';
        return Promise.reject(err);
      }
      return callHost('call_tool', { name: String(name), args });
    },
    // readMCPResource(link) with a resource_link from a tool's result (it names
    // its server), or readMCPResource(server, uri).
    readMCPResource: (linkOrServer, uri) => {
      const link = typeof linkOrServer === 'object' && linkOrServer !== null ? linkOrServer : null;
      const server = link ? link.server : linkOrServer;
      return callHost('read_resource', { name: String(server ?? ''), args: { uri: String(link ? link.uri ?? '' : uri ?? '') } });
    },
    fs: fsp,
    require: createRequire(ROOTS.workspace + '/'),
    utils,
    Buffer, URL, URLSearchParams, TextEncoder, TextDecoder, AbortController, structuredClone,
    setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate, queueMicrotask,
    process: Object.freeze({ env: Object.freeze({ ...process.env }), argv: [], platform: process.platform, version: process.version, cwd: () => ROOTS.workspace, hrtime: process.hrtime, memoryUsage: process.memoryUsage }),
  };
  return vm.createContext(globals, { name: 'agent' });
}

let context = makeContext();
let contextUsed = false;  // a block ran in it: init must start a fresh one
let warmedUp = false;     // the warm-up's scan holds what is on disk

// Runs one block's code in the REPL context; returns {ok, value?} or {ok: false, error}.
async function evaluate(code) {
  contextUsed = true;
  try {
    const names = topLevelDeclarations(code);
    // Declarations stay in the agent's own scope; on the way out (return,
    // throw or the end) a closure copies each bound one to the context's
    // global object, where the next block finds it.
    const exporter = `__harness_export_${exportNonce}`;
    const exports = names.map((n) => `try { globalThis[${JSON.stringify(n)}] = ${n}; } catch (e) {}`).join(' ');
    const source = `(async () => { let ${exporter}; try { ${exporter} = () => { ${exports} };\n${code}\n} finally { if (${exporter}) ${exporter}(); } })()`;
    const script = new vm.Script(source, { filename: FILENAME, lineOffset: -1 });
    const value = await script.runInContext(context);
    const problem = value === undefined ? null : jsonProblem(value);
    if (problem) return { ok: false, error: { name: 'TypeError', message: `return value is not JSON-serialisable: ${problem}` } };
    const result = { ok: true };
    if (value !== undefined) result.value = JSON.parse(JSON.stringify(value));
    return result;
  } catch (err) {
    return { ok: false, error: describeError(err, FILENAME, code.split('\n').length) };
  }
}

async function runExec(frame) {
  currentExec = frame.id;
  logState = { bytes: 0, truncated: false };
  const started = process.hrtime.bigint();
  const result = await blockScope.run(frame.id, () => evaluate(String(frame.code || '')));
  let files = [];
  try {
    // The block's own writes have queued their events: read them first (and
    // so before a scan counts the tree clean, which saves the next block a walk).
    await dirWatch.settle();
    files = tracker.changes();
  } catch (err) {
    // In the block's scope, so that the block's own output takes it.
    blockScope.run(frame.id, () => emitLog('warn', [`could not scan files: ${err.message}`]));
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const done = { type: 'done', exec: frame.id, ...result, files, ms };
  const text = JSON.stringify(done);
  if (Buffer.byteLength(text) > limits.frameBytes) {
    send({ type: 'done', exec: frame.id, ok: false, error: { name: 'RangeError', message: `the result is ${Buffer.byteLength(text)} bytes; the limit is ${limits.frameBytes}: return less, or write it to /workspace` }, files: [], ms });
  } else {
    sendLine(text);
  }
  currentExec = null;
}

// Before `ready`: an init and two throwaway blocks (one returns, one
// throws) through the very functions real frames take, their frames
// dropped. So the first real init and block find those functions compiled
// (V8 compiles a function at its first call; this took about 0.4 ms off the
// first block of a claimed sandbox) and node's promise hooks switched on
// (the first blockScope.run() does that, about 1.5 ms). Then a fresh context.
async function warmUp() {
  await runInit({ type: 'init', session: null, limits: {}, files: [] });
  await runExec({ type: 'exec', id: 'warm-up', code: 'const warm = [1, 2].map((x) => x + 1);\nreturn { warm, text: JSON.stringify(warm) };' });
  await runExec({ type: 'exec', id: 'warm-up', code: 'throw new Error("warm-up")' });
  limits = { ...DEFAULT_LIMITS };
  session = null;
  context = makeContext();
  contextUsed = false;
  warmedUp = true;
}

// `put` {id, files}: the host's own writes into /skills or /workspace (the
// full text of a long observation). Done here with the runtime's own fs, out
// of reach of anything the agent's code redefined, and not reported back as
// a change: the host wrote its copy already.
async function runPut(frame) {
  let ok = true;
  let error;
  try {
    await tracker.writeKnown(frame.files, !contextUsed);
  } catch (err) {
    ok = false;
    error = { name: 'PutError', message: String(err.message) };
  }
  send({ type: 'done', exec: frame.id, ok, ...(error ? { error } : {}), files: [] });
}

async function runInit(frame) {
  session = frame.session || null;
  limits = { ...DEFAULT_LIMITS, ...(frame.limits || {}) };
  // What is on disk already is known: the warm-up scanned both roots, and a
  // `put` before init (the shared example skills, written while the sandbox
  // waited in the pool) added its files.
  const known = warmedUp ? tracker.snapshot : undefined;
  tracker = new FileTracker(ROOTS, limits, dirWatch);
  await tracker.writeInitial(frame.files, known, !contextUsed);
  if (contextUsed) context = makeContext();
}

// Frames run one after another, except replies, which resolve a call the
// running exec is waiting on.
let queue = Promise.resolve();
function onFrame(frame) {
  if (frame.type === 'reply') return onReply(frame);
  if (frame.type === 'stop') return process.exit(0);
  if (frame.type === 'link') return runLink(frame);
  queue = queue.then(async () => {
    try {
      if (frame.type === 'init') await runInit(frame);
      else if (frame.type === 'exec') await runExec(frame);
      else if (frame.type === 'put') await runPut(frame);
      else process.stderr.write(`runtime: unknown frame type ${JSON.stringify(frame.type)}\n`);
    } catch (err) {
      process.stderr.write(`runtime: ${frame.type} failed: ${err && err.stack}\n`);
      if (frame.type === 'init') send({ type: 'done', exec: null, ok: false, error: { name: 'InitError', message: String(err.message) }, files: [] });
    }
  });
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (!line.trim()) continue;
    let frame;
    try { frame = JSON.parse(line); } catch { process.stderr.write('runtime: ignoring a line that is not JSON\n'); continue; }
    onFrame(frame);
  }
});
// The host closing stdin means stop, after the frames already received
// (when linked, the host keeps stdin open and closes the call socket instead).
process.stdin.on('end', () => { queue = queue.then(() => process.exit(0)); });

// Code from an earlier block (a timer, a forgotten promise) must not kill the REPL.
process.on('uncaughtException', (err) => emitLog('error', [`uncaught: ${err && err.stack ? err.stack : err}`]));
process.on('unhandledRejection', (err) => emitLog('error', [`unhandled rejection: ${err && err.message ? err.message : err}`]));

// Frames that arrive before `ready` (the host waits for it; a plain
// `docker run -i` with frames on stdin does not) queue behind the warm-up.
queue = warmUp()
  .catch((err) => process.stderr.write(`runtime: warm-up failed: ${err && err.stack}\n`))
  .then(() => {
    warming = false;
    send({ type: 'ready', pid: process.pid, node: process.version });
  });
