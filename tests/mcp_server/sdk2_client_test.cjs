// Code mode in the MCP 2026-07-28 era through the official TypeScript SDK's
// 2.x client (@modelcontextprotocol/client 2.4.0, from tests/mcp/versions),
// pinned to 2026-07-28, against a running mcp-harness over Streamable HTTP or
// `mcp-harness mcp` over stdio: server/discover, tools/list with caching
// hints, execute_code in a fresh sandbox, state under a session handle,
// another user's handle refused, approvals through input_required, long
// blocks as tasks (the Tasks extension: tasks/get, tasks/update,
// tasks/cancel), an aborted call stopped (by notifications/cancelled over
// stdio, by the closed connection over HTTP), and the
// 2025 era still served to the same SDK in its default (legacy) mode. Over
// HTTP also raw requests: header mismatches, versions, GET and DELETE.
//
// Environment (as sdk_client_test.cjs):
//   MCP_TEST_TRANSPORT   http | stdio
//   MCP_TEST_URL         http: the /mcp endpoint
//   MCP_TEST_KEY         http, optional: a key of exactly one user
//   MCP_TEST_ADMIN_KEY   http, optional: an admin key, to act for another user (bob)
//   MCP_TEST_COMMAND, MCP_TEST_ARGS, MCP_TEST_ENV_JSON, MCP_TEST_CWD   stdio: the child
'use strict';

const path = require('node:path');
const { createRequire } = require('node:module');
const { Skip, assert, short, sleep, textOf, stdioTransport, runChecks } = require('./check_runner.cjs');

const sdkRequire = createRequire(path.join(__dirname, '../mcp/versions/package.json'));
const { Client, StreamableHTTPClientTransport } = sdkRequire('@modelcontextprotocol/client');
const { StdioClientTransport } = sdkRequire('@modelcontextprotocol/client/stdio');
// The zod the client itself uses, for client.request()'s result schemas.
const { z } = createRequire(sdkRequire.resolve('@modelcontextprotocol/client'))('zod');
const TASKS = 'io.modelcontextprotocol/tasks';

const env = process.env;
const transportKind = env.MCP_TEST_TRANSPORT;
const MODERN = '2026-07-28';
if (transportKind !== 'http' && transportKind !== 'stdio') {
  console.error('MCP_TEST_TRANSPORT must be http or stdio');
  process.exit(2);
}

let childStderr = '';

function newTransport({ key = env.MCP_TEST_KEY, userId } = {}) {
  if (transportKind === 'http') {
    const headers = key ? { Authorization: `Bearer ${key}` } : {};
    const url = new URL(env.MCP_TEST_URL);
    if (userId) url.searchParams.set('userId', userId);
    return new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  }
  return stdioTransport(StdioClientTransport, env, (text) => {
    childStderr = (childStderr + text).slice(-16000);
  });
}

// What the server asked through elicitation/create (in the new era: the
// inputRequests of input_required results, which the SDK answers and
// retries with on its own), and the answers to give, in order.
const asked = [];
const answers = [];

// mode: { pin: '2026-07-28' }, 'auto', or 'legacy' (the SDK's default).
// options.tasks: declare the Tasks extension; the answers with resultType
// "task" are kept in options.tasks (by JSON-RPC id), because the 2.4.0
// client has no Tasks support of its own and rejects them
// (UNSUPPORTED_RESULT_TYPE).
async function connect(mode, options = {}) {
  const capabilities = { elicitation: { form: {} } };
  if (options.tasks) capabilities.extensions = { [TASKS]: {} };
  const client = new Client({ name: 'mcp-harness-sdk2-test', version: '1.0.0' }, {
    versionNegotiation: { mode },
    capabilities,
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params);
    return answers.shift() || { action: 'decline' };
  });
  const transport = newTransport(options);
  if (options.tasks) {
    // The client (re)sets onmessage while it connects: keep a task answer on the way in, every time.
    let inbound;
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      get: () => inbound,
      set: (fn) => {
        inbound = fn && ((message, extra) => {
          if (message?.result?.resultType === 'task') options.tasks.set(message.id, message.result);
          fn(message, extra);
        });
      },
    });
  }
  await client.connect(transport);
  return { client, transport };
}

const Task = z.looseObject({ taskId: z.string(), status: z.string() });

// execute_code that is expected to become a task: the task the server answered with.
async function startTask(client, tasks, code) {
  const before = new Set(tasks.keys());
  try {
    const r = await execute(client, code);
    throw new Error(`answered directly, not with a task: ${short(r)}`);
  } catch (e) {
    if (e.data?.resultType !== 'task') throw e;
  }
  const id = [...tasks.keys()].find((k) => !before.has(k));
  assert(id !== undefined, 'the SDK refused a task answer that never came');
  return tasks.get(id);
}

// tasks/get until the task is no longer working (answering its input with `answer`).
async function followTask(client, task, answer) {
  const seen = [];
  for (let i = 0; i < 120; ++i) {
    await sleep(task.pollIntervalMs || 500);
    const now = await client.request({ method: 'tasks/get', params: { taskId: task.taskId } }, Task);
    seen.push(now);
    if (now.status === 'input_required' && answer) {
      const inputResponses = {};
      for (const [key, request] of Object.entries(now.inputRequests || {})) inputResponses[key] = answer(request);
      await client.request({ method: 'tasks/update', params: { taskId: task.taskId, inputResponses } },
        z.looseObject({}));
      continue;
    }
    if (now.status !== 'working') return { last: now, seen };
  }
  throw new Error(`the task still runs after 120 polls: ${short(seen[seen.length - 1])}`);
}

async function execute(client, code, extra = {}) {
  return client.callTool({ name: 'execute_code', arguments: { code, ...extra } });
}

async function run(client, code, extra = {}) {
  const r = await execute(client, code, extra);
  assert(!r.isError && r.structuredContent && r.structuredContent.ok === true, `the block failed: ${short(r)}`);
  return r.structuredContent.result;
}

async function openSession(client) {
  const r = await client.callTool({ name: 'open_session', arguments: {} });
  assert(!r.isError && typeof r.structuredContent?.session === 'string', `open_session: ${short(r)}`);
  return r.structuredContent.session;
}

function envelope() {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  };
}

async function rawPost(headers, body) {
  const h = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers };
  if (env.MCP_TEST_KEY) h.Authorization = `Bearer ${env.MCP_TEST_KEY}`;
  const response = await fetch(env.MCP_TEST_URL, { method: 'POST', headers: h, body: JSON.stringify(body) });
  const text = await response.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, json, text };
}

// ---------------------------------------------------------------- checks

const ctx = { client: null, session: null };
const checks = [];
function check(name, fn, { transport, always } = {}) {
  checks.push({ name, fn, transport, always });
}

check('connect pinned to 2026-07-28', async () => {
  const { client } = await connect({ pin: MODERN });
  ctx.client = client;
  assert(client.getProtocolEra() === 'modern', `era ${client.getProtocolEra()}`);
  assert(client.getNegotiatedProtocolVersion() === MODERN, `version ${client.getNegotiatedProtocolVersion()}`);
  const discovered = client.getDiscoverResult();
  assert(discovered && discovered.supportedVersions.includes(MODERN), `discover: ${short(discovered)}`);
  assert(discovered._meta['io.modelcontextprotocol/serverInfo'].name === 'mcp-harness', short(discovered._meta));
  assert(discovered.ttlMs > 0 && discovered.cacheScope === 'public', `caching hints: ${short(discovered)}`);
  assert((discovered.instructions || '').includes('open_session'), 'the instructions do not mention open_session');
}, { always: true });

check('tools/list has the session tools and caching hints', async () => {
  const listed = await ctx.client.listTools();
  const names = listed.tools.map((t) => t.name);
  for (const name of ['search_tools', 'describe_tools', 'execute_code', 'open_session', 'close_session']) {
    assert(names.includes(name), `${name} missing from ${names}`);
  }
  assert(listed.ttlMs > 0 && listed.cacheScope === 'public', `hints: ${listed.ttlMs} ${listed.cacheScope}`);
  const execute = listed.tools.find((t) => t.name === 'execute_code');
  assert(execute.inputSchema.properties.session['x-mcp-header'] === 'Session', short(execute.inputSchema));
});

check('execute_code without a session runs in a fresh sandbox', async () => {
  const first = await execute(ctx.client, 'return 1 + 1');
  assert(first.structuredContent.result === 2 && !first.structuredContent.note, `not a plain 2: ${short(first)}`);
  await run(ctx.client, 'globalThis.left = "behind"; return 1');
  assert(await run(ctx.client, 'return typeof globalThis.left') === 'undefined', 'state leaked between one-shot calls');
});

check('search_tools and a real MCP server through code', async () => {
  const found = await ctx.client.callTool({ name: 'search_tools', arguments: { query: 'read graph' } });
  assert(found.structuredContent.tools.some((t) => t.name === 'memory__read_graph'), short(found));
  const graph = await run(ctx.client, "return await callMCPTool('memory__read_graph', {})");
  assert(graph !== undefined, 'no graph');
});

check('a session handle keeps state until closed', async () => {
  ctx.session = await openSession(ctx.client);
  await run(ctx.client, 'let counter = 41', { session: ctx.session });
  assert(await run(ctx.client, 'counter += 1; return counter', { session: ctx.session }) === 42, 'state lost');
  assert(await run(ctx.client, 'return typeof counter') === 'undefined', 'a one-shot call saw the session');
  const py = await openSession(ctx.client);
  await run(ctx.client, 'import statistics\nvalues = [1, 2, 3]', { session: py, language: 'python' });
  assert(await run(ctx.client, 'return statistics.mean(values)', { session: py, language: 'python' }) === 2, 'py');
  await ctx.client.callTool({ name: 'close_session', arguments: { session: py } });
});

check('another user\'s handle is unknown, as a made-up one', async () => {
  if (transportKind !== 'http' || !env.MCP_TEST_ADMIN_KEY) throw new Skip('needs HTTP and MCP_TEST_ADMIN_KEY');
  const { client } = await connect({ pin: MODERN }, { key: env.MCP_TEST_ADMIN_KEY, userId: 'bob' });
  try {
    const theirs = await execute(client, 'return counter', { session: ctx.session });
    const madeUp = await execute(client, 'return 1', { session: 'mcp_00000000000000000000000000000000' });
    for (const r of [theirs, madeUp]) {
      assert(r.isError && textOf(r).startsWith('unknown session'), `not refused: ${short(r)}`);
    }
    const closing = await client.callTool({ name: 'close_session', arguments: { session: ctx.session } });
    assert(closing.isError, `bob closed alice's session: ${short(closing)}`);
  } finally {
    await client.close();
  }
  assert(await run(ctx.client, 'return counter', { session: ctx.session }) === 42, 'alice lost her session');
});

check('approvals and upstream elicitations go through input_required, answered by the SDK', async () => {
  const roots = await run(ctx.client, "return await callMCPTool('fs__list_allowed_directories', {})");
  const m = JSON.stringify(roots).match(/(\/[^\s"',\\\]]+)/);
  assert(m, `no allowed directory in ${short(roots)}`);
  ctx.allowedDir = m[1];
  const code = `try {
      const r = await callMCPTool('fs__list_directory', {path: ${JSON.stringify(m[1])}});
      return 'listed ' + JSON.stringify(r).length;
    } catch (e) { return e.code + ': ' + e.message; }`;
  asked.length = 0;
  answers.push({ action: 'accept', content: { scope: 'call' } }, { action: 'decline' });
  const first = await run(ctx.client, code);
  assert(String(first).startsWith('listed '), `the approved call did not run: ${short(first)}`);
  assert(asked.length === 1 && asked[0].message.includes('fs__list_directory'), `asked: ${short(asked)}`);
  // In a session too, and a decline refuses the call.
  const session = await openSession(ctx.client);
  const second = await run(ctx.client, code, { session });
  assert(String(second).startsWith('approval_denied: ') && String(second).includes('the user declined'),
    `a declined call: ${short(second)}`);
  // An upstream server's own elicitation during a call reaches the client the same way.
  answers.push({ action: 'accept', content: { name: 'Ann Era' } });
  const upstream = await run(ctx.client,
    "return JSON.stringify(await callMCPTool('everything__trigger-elicitation-request', {}))", { session });
  assert(asked.length === 3 && String(asked[2].message).includes('Please provide inputs'), short(asked[2]));
  assert(String(upstream).includes('Ann Era'), `the server did not get the answer: ${short(upstream)}`);
  await ctx.client.callTool({ name: 'close_session', arguments: { session } });
});

check('an upstream server of the new era: its tools from code, its input_required answered by the SDK, its task polled', async () => {
  const names = await run(ctx.client, "return (await list_mcp_tools('modern')).map((t) => t.name)");
  assert(['modern__echo', 'modern__ask', 'modern__slow'].every((n) => names.includes(n)), `listed: ${short(names)}`);
  const echoed = await run(ctx.client, "return await callMCPTool('modern__echo', {text: 'hello there'})");
  assert(JSON.stringify(echoed).includes('hello there'), `echo: ${short(echoed)}`);
  // The server answers input_required; the harness asks the person behind the
  // call (this SDK client, itself through input_required) and retries.
  asked.length = 0;
  answers.push({ action: 'accept', content: { answer: 'blue' } });
  const answered = await run(ctx.client, "return await callMCPTool('modern__ask', {question: 'Which colour?'})");
  assert(asked.length === 1 && String(asked[0].message).includes('Which colour?'), `asked: ${short(asked)}`);
  assert(JSON.stringify(answered).includes('answer: blue'), `the server did not get the answer: ${short(answered)}`);
  // The server answers with a task; the harness polls it to its result.
  const slept = await run(ctx.client, "return await callMCPTool('modern__slow', {ms: 1200})");
  assert(JSON.stringify(slept).includes('slept 1200 ms'), `slow: ${short(slept)}`);
});

check('run_task hands a whole task to the agent: its approval put to the SDK, its answer back', async () => {
  const names = (await ctx.client.listTools()).tools.map((t) => t.name);
  assert(names.includes('run_task'), `tools: ${names}`);
  asked.length = 0;
  answers.push({ action: 'accept', content: { scope: 'call' } });
  // The fake LLM writes a block that lists the shared folder (the tool policy
  // asks first), then answers "The folder is listed.".
  const r = await ctx.client.callTool({ name: 'run_task', arguments: { task: 'List the shared folder.' } });
  assert(!r.isError && r.content[0].text === 'The folder is listed.', `run_task: ${short(r)}`);
  assert(r.structuredContent.status === 'succeeded' && r.structuredContent.taskId.startsWith('task_'),
    short(r.structuredContent));
  assert(asked.length === 1 && String(asked[0].message).includes('fs__list_directory'), `asked: ${short(asked)}`);
});

check('a long block becomes a task: followed with tasks/get, its input given with tasks/update, cancelled', async () => {
  const tasks = new Map();
  const { client } = await connect({ pin: MODERN }, { tasks });
  try {
    const task = await startTask(client, tasks, 'await new Promise((r) => setTimeout(r, 4000)); return 42');
    assert(task.status === 'working' && task.taskId.startsWith('task_') && task.pollIntervalMs > 0, short(task));
    const { last, seen } = await followTask(client, task);
    assert(last.status === 'completed' && last.result.structuredContent.result === 42, short(last));
    assert(seen.some((t) => t.status === 'working' && /has run for \d+ s/.test(t.statusMessage || '')),
      `no progress while it ran: ${short(seen)}`);

    // An approval the block asks for after it became a task: input_required, answered with tasks/update.
    const approve = `await new Promise((r) => setTimeout(r, 1500));
      const listed = await callMCPTool('fs__list_directory', {path: ${JSON.stringify(ctx.allowedDir)}});
      return 'listed ' + JSON.stringify(listed).length;`;
    const asking = await startTask(client, tasks, approve);
    const answered = [];
    const approved = await followTask(client, asking, (request) => {
      answered.push(request);
      return { action: 'accept', content: { scope: 'call' } };
    });
    assert(answered.length === 1 && answered[0].method === 'elicitation/create' &&
      answered[0].params.message.includes('fs__list_directory'), `asked: ${short(answered)}`);
    assert(approved.last.status === 'completed' &&
      String(approved.last.result.structuredContent.result).startsWith('listed '), short(approved.last));

    // tasks/cancel stops the block.
    const endless = await startTask(client, tasks, 'await new Promise((r) => setTimeout(r, 600000))');
    await client.request({ method: 'tasks/cancel', params: { taskId: endless.taskId } }, z.looseObject({}));
    const { last: cancelled } = await followTask(client, endless);
    assert(cancelled.status === 'cancelled', short(cancelled));

    let unknown;
    try {
      await client.request({ method: 'tasks/get', params: { taskId: 'task_00000000000000000000000000000000' } }, Task);
    } catch (e) {
      unknown = e;
    }
    assert(unknown && unknown.code === -32602 && /task not found/.test(unknown.message), short(unknown));
  } finally {
    await client.close();
  }
});

// Calls execute_code with `code` and aborts the call (the SDK's AbortSignal) `afterMs` in.
async function abortedCall(code, afterMs) {
  const aborter = new AbortController();
  const call = ctx.client.callTool({ name: 'execute_code', arguments: { code } }, { signal: aborter.signal });
  await sleep(afterMs);
  aborter.abort();
  let failure;
  try {
    await call;
  } catch (e) {
    failure = e;
  }
  assert(failure, 'the aborted call answered');
}

check('an aborted call is cancelled over stdio, and its block stopped', async () => {
  await abortedCall('await new Promise(() => {})', 1500);
  for (let i = 0; i < 50 && !childStderr.includes('a tools/call was cancelled by its client'); ++i) await sleep(100);
  assert(childStderr.includes('a tools/call was cancelled by its client'), 'the server did not hear of the cancel');
  assert(await run(ctx.client, 'return 8') === 8, 'the server is stuck after a cancel');
}, { transport: 'stdio' });

// 2026-07-28: "The server MUST treat a client disconnect as cancellation of
// that request." The block would leave a mark in the memory server 2.5 s in;
// the SDK aborts the call (its fetch, so its connection) 1 s in, and the mark
// must never come.
check('an aborted call is cancelled over HTTP by the closed connection, and its block stopped', async () => {
  const mark = `left-behind-${process.pid}`;
  await abortedCall(`await new Promise((r) => setTimeout(r, 2500));
    await callMCPTool('memory__create_entities', {entities: [{name: ${JSON.stringify(mark)}, entityType: 'mark',
      observations: ['written by a block whose client had left']}]});
    return 'finished';`, 1000);
  await sleep(3500);
  const graph = await run(ctx.client, "return await callMCPTool('memory__read_graph', {})");
  assert(!JSON.stringify(graph).includes(mark), `the block ran on after its client left: ${short(graph)}`);
}, { transport: 'http' });

check('the Skills extension: listed, got and every file verified by the SDK\'s SkillsClient', async () => {
  const { SkillsClient } = sdkRequire('@modelcontextprotocol/client/ext/skills');
  const skills = new SkillsClient(ctx.client);
  assert(skills.supported, 'the server does not declare the Skills extension');
  const save = `const fs = require('fs');
    fs.mkdirSync('/skills/tally-votes', { recursive: true });
    fs.writeFileSync('/skills/tally-votes/SKILL.md',
      '---\\nname: tally-votes\\ndescription: Counts votes per option, biggest first.\\n---\\n\\nUse tally.js.\\n');
    fs.writeFileSync('/skills/tally-votes/tally.js', 'module.exports = (votes) => votes.length;\\n');
    return 'saved';`;
  assert(await run(ctx.client, save) === 'saved', 'the skill was not saved');
  const listing = await skills.list();
  assert(listing.ttlMs === 0 && listing.cacheScope === 'private', `hints: ${listing.ttlMs} ${listing.cacheScope}`);
  const entry = listing.skills.find((s) => s.frontmatter.name === 'tally-votes');
  assert(entry && entry.uri === 'skill://tally-votes/SKILL.md', `not listed: ${short(listing.skills)}`);
  const manifest = await skills.read(entry);  // checks size, digest and that the front matter is the entry's
  assert(manifest.verified && manifest.body.includes('Use tally.js.'), short(manifest));
  const code = await skills.read(entry, 'tally.js');
  assert(code.verified && code.text.includes('votes.length'), short(code));
  const got = await skills.get('skill://tally-votes/SKILL.md');
  assert(JSON.stringify(got.skill) === JSON.stringify(entry), `get differs from list: ${short(got)}`);
  let unknown;
  try {
    await skills.get('skill://no-such-skill/SKILL.md');
  } catch (e) {
    unknown = e;
  }
  assert(unknown && unknown.code === -32602, `an unknown skill: ${short(unknown)}`);
});

check('close_session ends it', async () => {
  const closed = await ctx.client.callTool({ name: 'close_session', arguments: { session: ctx.session } });
  assert(!closed.isError && closed.structuredContent.closed === true, short(closed));
  const after = await execute(ctx.client, 'return counter', { session: ctx.session });
  assert(after.isError && textOf(after).startsWith('unknown session'), short(after));
});

check('raw: headers that disagree with the body are -32020', async () => {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } };
  const wrongMethod = await rawPost({ 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call' }, body);
  assert(wrongMethod.status === 400 && wrongMethod.json.error.code === -32020, short(wrongMethod.json));
  const call = { jsonrpc: '2.0', id: 2, method: 'tools/call',
    params: { name: 'execute_code', arguments: { code: 'return 1' }, _meta: envelope() } };
  const noName = await rawPost({ 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call' }, call);
  assert(noName.status === 400 && noName.json.error.data.mismatch.header === 'Mcp-Name', short(noName.json));
  const ok = await rawPost({ 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'execute_code' },
    call);
  assert(ok.status === 200 && ok.json.result.structuredContent.result === 1, short(ok.json));
  assert(!ok.headers.get('mcp-session-id'), 'a session id in the new era');
}, { transport: 'http' });

check('raw: an unsupported version is -32022 naming the versions spoken', async () => {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/list',
    params: { _meta: { ...envelope(), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } };
  const r = await rawPost({ 'MCP-Protocol-Version': '2099-01-01', 'Mcp-Method': 'tools/list' }, body);
  assert(r.status === 400 && r.json.error.code === -32022, short(r.json));
  assert(r.json.error.data.supported.includes(MODERN) && r.json.error.data.requested === '2099-01-01', short(r.json));
  const bare = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
  const missing = await rawPost({ 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/list' }, bare);
  assert(missing.status === 400 && missing.json.error.code === -32602, short(missing.json));
}, { transport: 'http' });

check('raw: GET and DELETE in the new era are 405', async () => {
  for (const method of ['GET', 'DELETE']) {
    const headers = { 'MCP-Protocol-Version': MODERN, Accept: 'text/event-stream' };
    if (env.MCP_TEST_KEY) headers.Authorization = `Bearer ${env.MCP_TEST_KEY}`;
    const r = await fetch(env.MCP_TEST_URL, { method, headers });
    await r.text();
    assert(r.status === 405 && r.headers.get('allow') === 'POST', `${method}: ${r.status} ${r.headers.get('allow')}`);
  }
}, { transport: 'http' });

check('auto mode negotiates the new era, as the specification says', async () => {
  const { client } = await connect('auto');
  try {
    assert(client.getProtocolEra() === 'modern', `era ${client.getProtocolEra()}`);
    assert(await run(client, 'return 3') === 3, 'not 3');
  } finally {
    await client.close();
  }
});

check('the SDK\'s default (legacy) mode still gets the 2025 era', async () => {
  const { client, transport } = await connect('legacy');
  try {
    assert(client.getProtocolEra() !== 'modern', `era ${client.getProtocolEra()}`);
    assert(client.getNegotiatedProtocolVersion() === '2025-11-25', client.getNegotiatedProtocolVersion());
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert(!names.includes('open_session'), `2025 tools: ${names}`);
    await run(client, 'let kept = 7');
    assert(await run(client, 'return kept') === 7, 'the 2025 session lost its state');
    if (transportKind === 'http') await transport.terminateSession();
  } finally {
    await client.close();
  }
});

check('close', async () => {
  await ctx.client.close();
  await sleep(10);
}, { always: true });

runChecks(checks, {
  transport: transportKind,
  connectName: 'connect pinned to 2026-07-28',
  onFailures: () => (childStderr ? `# the stdio child's stderr (last part):\n${childStderr.slice(-6000)}` : ''),
  onWatchdog: () => (childStderr ? `# the stdio child's stderr (last part):\n${childStderr.slice(-6000)}` : ''),
});
