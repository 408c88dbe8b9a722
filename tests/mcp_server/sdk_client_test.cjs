// Code mode through the official MCP TypeScript SDK client (1.25.2, from
// tests/conformance/node_modules): what an MCP client such as Claude Code or
// Cursor does, against a running mcp-harness over Streamable HTTP, or against
// `mcp-harness mcp` over stdio. Node 20, no other dependencies.
//
// The target comes from the environment:
//   MCP_TEST_TRANSPORT   http | stdio
//   MCP_TEST_URL         http: the /mcp endpoint, e.g. http://127.0.0.1:8080/mcp
//   MCP_TEST_KEY         http, optional: an API key of a user key for exactly one
//                        user; turns on the key checks (401, ?userId= of another user: 403)
//   MCP_TEST_OTHER_USER  http with a key, optional: a user the key may not act for (default bob)
//   MCP_TEST_COMMAND     stdio: the mcp-harness binary (run as `mcp [MCP_TEST_ARGS]`)
//   MCP_TEST_ARGS        stdio, optional: JSON array of arguments (default ["mcp"])
//   MCP_TEST_ENV_JSON    stdio: the child's environment, a JSON object (the SDK adds
//                        only HOME, LOGNAME, PATH, SHELL, TERM and USER)
//   MCP_TEST_CWD         stdio, optional: the child's working directory
//   MCP_TEST_FS_SERVER / MCP_TEST_MEMORY_SERVER   names of the filesystem and
//                        memory servers in the server's MCP config (default fs, memory)
//   MCP_TEST_EXPECT_SKILL  optional: a skill folder the acting user has in /skills
//                        (proves which user the session acts for)
//   MCP_TEST_ONLY        optional: ';'-separated parts of the names of the checks to
//                        run (connect and close always run)
//
// Prints one line per check ("ok", "not ok" or "skip", its name, the time it
// took, and for a failure why) and exits 1 when any check failed.
'use strict';

const path = require('node:path');
const crypto = require('node:crypto');
const { createRequire } = require('node:module');

// Resolved from the conformance folder so that the SDK's package "exports"
// apply (client/index.js maps to dist/cjs/client/index.js).
const sdkRequire = createRequire(path.join(__dirname, '../conformance/package.json'));
const { Client } = sdkRequire('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = sdkRequire('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { StdioClientTransport } = sdkRequire('@modelcontextprotocol/sdk/client/stdio.js');
const { ElicitRequestSchema } = sdkRequire('@modelcontextprotocol/sdk/types.js');
const { Skip, assert, short, sleep, textOf, stdioTransport, runChecks } = require('./check_runner.cjs');

const env = process.env;
const transportKind = env.MCP_TEST_TRANSPORT;
const fsServer = env.MCP_TEST_FS_SERVER || 'fs';
const memoryServer = env.MCP_TEST_MEMORY_SERVER || 'memory';
const runId = `${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
const CHECK_TIMEOUT_MS = 90000;
const WATCHDOG_MS = 240000;

if (transportKind !== 'http' && transportKind !== 'stdio') {
  console.error('MCP_TEST_TRANSPORT must be http or stdio');
  process.exit(2);
}
if (transportKind === 'http' && !env.MCP_TEST_URL) {
  console.error('MCP_TEST_TRANSPORT=http needs MCP_TEST_URL');
  process.exit(2);
}
if (transportKind === 'stdio' && !env.MCP_TEST_COMMAND) {
  console.error('MCP_TEST_TRANSPORT=stdio needs MCP_TEST_COMMAND');
  process.exit(2);
}

// ---------------------------------------------------------------- helpers

// What the child wrote on stderr (stdio), kept to show when a check fails.
let childStderr = '';

function newTransport(options = {}) {
  if (transportKind === 'http') {
    const headers = {};
    const key = 'key' in options ? options.key : env.MCP_TEST_KEY;
    if (key) headers.Authorization = `Bearer ${key}`;
    return new StreamableHTTPClientTransport(new URL(env.MCP_TEST_URL), { requestInit: { headers } });
  }
  return stdioTransport(StdioClientTransport, env, (text) => {
    childStderr = (childStderr + text).slice(-16000);
  });
}

// Client-side errors that are not failures of a check (e.g. the SDK's GET
// stream getting 405) are counted, not fatal.
const clientErrors = [];

async function connect(options = {}) {
  const transport = newTransport(options);
  const client = new Client({ name: 'mcp-harness-sdk-test', version: '1.0.0' },
    options.capabilities ? { capabilities: options.capabilities } : undefined);
  if (options.onElicit) client.setRequestHandler(ElicitRequestSchema, options.onElicit);
  client.onerror = (e) => clientErrors.push(e && e.message ? e.message : String(e));
  await client.connect(transport);
  return { client, transport };
}

async function execute(client, code, extra = {}, requestOptions = {}) {
  return client.callTool({ name: 'execute_code', arguments: { code, ...extra } }, undefined, requestOptions);
}

// The value an execute_code returned; fails the check when the block failed.
async function run(client, code, extra = {}) {
  const r = await execute(client, code, extra);
  assert(!r.isError && r.structuredContent && r.structuredContent.ok === true,
    `the block failed: ${short(r)}`);
  return r.structuredContent.result;
}

// Raw HTTP to the /mcp endpoint (what the SDK does not let us shape).
function rawHeaders(extra = {}, key = env.MCP_TEST_KEY) {
  const h = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...extra,
  };
  if (key) h.Authorization = `Bearer ${key}`;
  return h;
}

const initializeBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'mcp-harness-sdk-test-raw', version: '1.0.0' },
  },
});

async function rawPost(url, headers, body) {
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON (an SSE body, or nothing)
  }
  return { status: response.status, headers: response.headers, text, json };
}

// Ends a session a raw initialize opened, so that none is left behind.
async function rawDelete(sessionId) {
  if (!sessionId) return;
  await fetch(env.MCP_TEST_URL, {
    method: 'DELETE',
    headers: { ...rawHeaders(), 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-11-25' },
  }).then((r) => r.text()).catch(() => {});
}

// ---------------------------------------------------------------- checks

const ctx = {
  client: null,
  transport: null,
  fsRoot: null,
  childPid: null,
};

const checks = [];
function check(name, fn, { transport, always } = {}) {
  checks.push({ name, fn, transport, always });
}

check('connect', async () => {
  const { client, transport } = await connect();
  ctx.client = client;
  ctx.transport = transport;
  const server = client.getServerVersion();
  assert(server && server.name === 'mcp-harness', `serverInfo is ${short(server)}`);
  const caps = client.getServerCapabilities();
  assert(caps && caps.tools, `capabilities have no tools: ${short(caps)}`);
  assert(typeof client.getInstructions() === 'string' && client.getInstructions().includes('execute_code'),
    'the instructions do not mention execute_code');
  if (transportKind === 'http') {
    assert(/^[\x21-\x7e]+$/.test(transport.sessionId || ''), `no usable session id: ${transport.sessionId}`);
  } else {
    ctx.childPid = transport.pid;
    assert(ctx.childPid > 0, 'the stdio child has no pid');
    console.log(`# stdio child pid ${ctx.childPid}`);
  }
}, { always: true });

check('list tools', async () => {
  const { tools } = await ctx.client.listTools();
  const names = tools.map((t) => t.name).sort();
  // run_task too: the test's server has an LLM (a fake one).
  assert(JSON.stringify(names) === JSON.stringify(['describe_tools', 'execute_code', 'run_task', 'search_tools']),
    `tools are ${short(names)}`);
  for (const t of tools) {
    assert(typeof t.description === 'string' && t.description.length > 20, `${t.name} has no description`);
    assert(t.inputSchema && t.inputSchema.type === 'object', `${t.name} has no object inputSchema`);
  }
  const exec = tools.find((t) => t.name === 'execute_code');
  assert(exec.inputSchema.required && exec.inputSchema.required.includes('code'),
    'execute_code does not require code');
});

check('search_tools finds the filesystem read tool', async () => {
  const r = await ctx.client.callTool({ name: 'search_tools', arguments: { query: 'read text file', limit: 20 } });
  assert(!r.isError, `search_tools failed: ${short(r)}`);
  const found = r.structuredContent.tools.map((t) => t.name);
  const want = `${fsServer}__read_text_file`;
  assert(found.includes(want), `${want} is not among ${short(found)}`);
  const entry = r.structuredContent.tools.find((t) => t.name === want);
  assert(entry.signature.startsWith(`${want}(`), `its signature is ${short(entry.signature)}`);
  assert(textOf(r).includes(want), 'the text does not name it');
});

check('describe_tools gives a TypeScript declaration', async () => {
  const want = `${fsServer}__read_text_file`;
  const r = await ctx.client.callTool({ name: 'describe_tools', arguments: { names: [want, 'no_such__tool'] } });
  assert(!r.isError, `describe_tools failed: ${short(r)}`);
  const d = r.structuredContent.declarations;
  assert(d.length === 1 && d[0].name === want, `declarations: ${short(d)}`);
  assert(new RegExp(`declare function ${want}\\(args: \\{[^]*path: string`).test(d[0].declaration),
    `not a declaration with path: string: ${short(d[0].declaration)}`);
  assert(/Promise</.test(d[0].declaration), 'the declaration has no Promise return type');
  assert(JSON.stringify(r.structuredContent.unknown) === '["no_such__tool"]',
    `unknown: ${short(r.structuredContent.unknown)}`);
  assert(textOf(r).includes(`declare function ${want}`), 'the text lacks the declaration');
});

check('execute_code return 1+1', async () => {
  const r = await execute(ctx.client, 'return 1+1');
  assert(!r.isError, `isError: ${short(r)}`);
  assert(r.structuredContent.ok === true && r.structuredContent.result === 2,
    `structuredContent: ${short(r.structuredContent)}`);
  assert(textOf(r).includes('2'), `text: ${short(textOf(r))}`);
});

if (env.MCP_TEST_EXPECT_SKILL) {
  check('the session acts for the expected user', async () => {
    const names = await run(ctx.client, 'return (await fs.readdir("/skills")).sort()');
    assert(Array.isArray(names) && names.includes(env.MCP_TEST_EXPECT_SKILL),
      `/skills holds ${short(names)}, not ${env.MCP_TEST_EXPECT_SKILL}`);
  });

  check('the user\'s skills are resources: listed, and their SKILL.md read', async () => {
    const uri = `skill://${env.MCP_TEST_EXPECT_SKILL}/SKILL.md`;
    const listed = await ctx.client.listResources();
    const uris = (listed.resources || []).map((r) => r.uri);
    assert(uris.includes(uri), `resources/list gave ${short(uris)}, not ${uri}`);
    const read = await ctx.client.readResource({ uri });
    const text = read.contents && read.contents[0] && read.contents[0].text;
    assert(typeof text === 'string' && text.includes(env.MCP_TEST_EXPECT_SKILL), `resources/read gave ${short(read)}`);
    let error = null;
    try {
      await ctx.client.readResource({ uri: 'skill://no-such-skill/SKILL.md' });
    } catch (e) {
      error = e;
    }
    assert(error && error.code === -32002, `an unknown skill gave ${short(error && error.message)}`);
  });
}

check('execute_code error comes back as isError', async () => {
  const r = await execute(ctx.client, 'console.log("before"); throw new Error("boom-" + 7)');
  assert(r.isError === true, `isError is ${r.isError}`);
  assert(r.structuredContent.ok === false && r.structuredContent.error.message === 'boom-7',
    `structuredContent: ${short(r.structuredContent)}`);
  assert(r.structuredContent.logs.some((l) => l.text === 'before'), 'the console line is missing');
  assert(textOf(r).includes('boom-7'), `text: ${short(textOf(r))}`);
});

check('unknown tool is a JSON-RPC error', async () => {
  let error = null;
  try {
    await ctx.client.callTool({ name: 'no_such_tool', arguments: {} });
  } catch (e) {
    error = e;
  }
  assert(error && error.code === -32602, `expected McpError -32602, got ${error ? `${error.code} ${error.message}` : 'a result'}`);
});

check('execute_code calls the filesystem server (write, then read)', async () => {
  const roots = await run(ctx.client,
    `const r = await callMCPTool('${fsServer}__list_allowed_directories', {});
     return typeof r === 'string' ? r : (r.content ?? JSON.stringify(r));`);
  // "Allowed directories:\n/path" (the server's text); the first absolute path.
  const m = String(roots).match(/(\/[^\s"',\]]+)/);
  assert(m, `no allowed directory in ${short(roots)}`);
  ctx.fsRoot = m[1];
  const file = `${ctx.fsRoot}/sdk-test-${runId}.txt`;
  const content = `hello from ${runId}`;
  const out = await run(ctx.client,
    `await callMCPTool('${fsServer}__write_file', {path: ${JSON.stringify(file)}, content: ${JSON.stringify(content)}});
     const back = await callMCPTool('${fsServer}__read_text_file', {path: ${JSON.stringify(file)}});
     return back.content;`);
  assert(out === content, `read back ${short(out)}`);
});

check('execute_code calls the memory server (create_entities, read_graph)', async () => {
  const name = `sdk-test-entity-${runId}`;
  const out = await run(ctx.client,
    `await callMCPTool('${memoryServer}__create_entities', {entities: [{name: ${JSON.stringify(name)},
       entityType: 'test', observations: ['made by sdk_client_test']}]});
     const graph = await callMCPTool('${memoryServer}__read_graph', {});
     return graph.entities.filter(e => e.name === ${JSON.stringify(name)});`);
  assert(Array.isArray(out) && out.length === 1 && out[0].entityType === 'test' &&
    out[0].observations[0] === 'made by sdk_client_test', `read_graph gave ${short(out)}`);
  const r = await execute(ctx.client, 'return 0');
  assert(!r.isError, 'a plain block after the tool calls failed');
});

check('state is kept across calls', async () => {
  await run(ctx.client, 'globalThis.counter = 41; const keptConst = "c"; let keptLet = 1;');
  const n = await run(ctx.client, 'return ++counter');
  assert(n === 42, `++counter gave ${short(n)}`);
  const both = await run(ctx.client, 'keptLet += 1; return keptConst + keptLet');
  assert(both === 'c2', `the const/let gave ${short(both)}`);
});

check('reset: true forgets the state', async () => {
  const before = await run(ctx.client, 'return typeof counter');
  assert(before === 'number', `before the reset counter is ${before}`);
  const after = await run(ctx.client, 'return [typeof counter, typeof keptConst, typeof keptLet]', { reset: true });
  assert(JSON.stringify(after) === '["undefined","undefined","undefined"]', `after the reset: ${short(after)}`);
});

check('PII in a tool result comes back tokenized', async () => {
  // reset: true gives the session a fresh sandbox and with it a fresh PII
  // vault, so the address is the vault's first email. (A second session would
  // do too over HTTP, but over stdio it is a second server process, whose
  // start-up sweep removes the containers of this one's SANDBOX_OWNER.)
  const client = ctx.client;
  const address = `jane.doe.${runId.replace(/[^a-z0-9]/g, '')}@example.com`;
  assert(ctx.fsRoot, 'the filesystem check found no allowed directory');
  const file = `${ctx.fsRoot}/sdk-test-pii-${runId}.txt`;
  await run(client, `await callMCPTool('${fsServer}__write_file', {path: ${JSON.stringify(file)},
    content: ${JSON.stringify(`Write to ${address} about the invoice.`)}}); return 'written'`, { reset: true });
  const r = await execute(client,
    `const {content} = await callMCPTool('${fsServer}__read_text_file', {path: ${JSON.stringify(file)}});
     return {content, sawAt: content.includes('@')};`);
  assert(!r.isError, `the read failed: ${short(r)}`);
  const all = JSON.stringify(r);
  assert(!all.includes(address), `the address is in the answer: ${short(all)}`);
  assert(!all.includes('jane.doe'), 'part of the address is in the answer');
  assert(textOf(r).includes('[EMAIL_1]'), `the text has no [EMAIL_1]: ${short(textOf(r))}`);
  assert(r.structuredContent.result.content === 'Write to [EMAIL_1] about the invoice.',
    `content: ${short(r.structuredContent.result.content)}`);
  assert(r.structuredContent.result.sawAt === false, 'the code saw the address');
  // A token passed on to a tool is restored for it: the file holds the real address.
  const copy = `${ctx.fsRoot}/sdk-test-pii-copy-${runId}.txt`;
  const size = await run(client,
    `await callMCPTool('${fsServer}__write_file', {path: ${JSON.stringify(copy)}, content: 'to [EMAIL_1]'});
     const info = await callMCPTool('${fsServer}__get_file_info', {path: ${JSON.stringify(copy)}});
     return JSON.stringify(info).match(/size: (\\d+)/)?.[1] ?? JSON.stringify(info);`);
  assert(String(size) === String(`to ${address}`.length), `the copy's size is ${short(size)}, not the real address's`);
});

check('a cancelled block stops, and the session goes on', async () => {
  await run(ctx.client, 'globalThis.beforeCancel = 1; return 1');
  const controller = new AbortController();
  const started = Date.now();
  setTimeout(() => controller.abort(), 1000);
  let error = null;
  try {
    await execute(ctx.client, 'await new Promise(r => setTimeout(r, 60000)); return "not cancelled"', {},
      { signal: controller.signal });
  } catch (e) {
    error = e;
  }
  const took = Date.now() - started;
  assert(error, 'the call was not rejected');
  assert(took < 5000, `it was rejected after ${took} ms`);
  const r = await execute(ctx.client, 'return [typeof beforeCancel, "after"]');
  const tookAll = Date.now() - started;
  assert(!/still running/.test(textOf(r)), `the next block got "${textOf(r)}": the cancellation did not stop the block`);
  assert(!r.isError, `the next block failed: ${short(r)}`);
  assert(JSON.stringify(r.structuredContent.result) === '["undefined","after"]',
    `the next block gave ${short(r.structuredContent.result)}`);
  assert(/cancel/i.test(r.structuredContent.note || ''), `its note is ${short(r.structuredContent.note)}`);
  assert(tookAll < 30000, `the next block answered ${tookAll} ms after the start`);
});

check('progress notifications arrive for a ~3 s block', async () => {
  const progress = [];
  const r = await execute(ctx.client, 'await new Promise(r => setTimeout(r, 3200)); return "slow"', {},
    { onprogress: (p) => progress.push(p) });
  assert(!r.isError && r.structuredContent.result === 'slow', `the block gave ${short(r)}`);
  assert(progress.length >= 1, 'no progress notification arrived');
  for (let i = 1; i < progress.length; ++i) {
    assert(progress[i].progress > progress[i - 1].progress, `progress did not increase: ${short(progress)}`);
  }
});

check('a block cancelled while it streams progress stops too', async () => {
  const controller = new AbortController();
  const progress = [];
  const started = Date.now();
  setTimeout(() => controller.abort(), 2500);
  let error = null;
  try {
    await execute(ctx.client, 'while (true) {}', {}, { signal: controller.signal, onprogress: (p) => progress.push(p) });
  } catch (e) {
    error = e;
  }
  assert(error, 'the call was not rejected');
  assert(Date.now() - started < 6000, `it was rejected after ${Date.now() - started} ms`);
  const r = await execute(ctx.client, 'return "alive"');
  assert(!r.isError && r.structuredContent.result === 'alive', `the next block gave ${short(r)}`);
  assert(/cancel/i.test(r.structuredContent.note || ''), `its note is ${short(r.structuredContent.note)}`);
});

check('reset after a cancelled block forgets the state', async () => {
  // The block right after a cancellation runs in a new sandbox; a second
  // cancellation must stop that one, and reset: true must end it.
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 1000);
  const started = Date.now();
  try {
    await execute(ctx.client, 'await new Promise(r => setTimeout(r, 60000))', {}, { signal: controller.signal });
  } catch {
    // cancelled, as the checks before show
  }
  const next = await execute(ctx.client, 'globalThis.afterCancel = 5; return 1');
  assert(!/still running/.test(textOf(next)),
    `the block after the cancellation got "${textOf(next)}" ${Date.now() - started} ms after the start: the ` +
    'cancellation did not stop the block (the session had lost track of its sandbox)');
  assert(!next.isError, `the block after the cancellation failed: ${short(next)}`);
  await sleep(1500);  // the cancelled block's sandbox is gone by now
  const kind = await run(ctx.client, 'return typeof afterCancel', { reset: true });
  assert(kind === 'undefined',
    `after reset: true, afterCancel is still a ${kind}: the reset did not end the sandbox (the session lost ` +
    'track of the sandbox it opened after the cancellation)');
});

// --- HTTP only

async function expectConnect401(key, what) {
  let error = null;
  let session = null;
  try {
    session = await connect({ key });
  } catch (e) {
    error = e;
  }
  if (session) {
    await session.transport.terminateSession().catch(() => {});
    await session.client.close();
    throw new Error(`connect with ${what} succeeded`);
  }
  assert(error.code === 401, `connect with ${what} failed with ${error.code}: ${short(error.message)}`);
}

check('no key, a malformed key, a wrong key: connect fails with 401', async () => {
  if (!env.MCP_TEST_KEY) throw new Skip('MCP_TEST_KEY is not set (a server running open takes any caller)');
  await expectConnect401(null, 'no key');
  await expectConnect401('not-a-key', 'a malformed key');
  // The same shape as a real key (mh_ + 43 base64url characters), another value.
  const real = env.MCP_TEST_KEY;
  const flipped = real.slice(0, -4) + (real.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA');
  await expectConnect401(flipped, 'a wrong key');
  // What a client reads to learn that it needs a key.
  const raw = await rawPost(env.MCP_TEST_URL, rawHeaders({}, null), initializeBody);
  assert(raw.status === 401 && /^Bearer /i.test(raw.headers.get('www-authenticate') || ''),
    `without a key: status ${raw.status}, WWW-Authenticate ${raw.headers.get('www-authenticate')}`);
}, { transport: 'http' });

check('?userId= of a user the key may not act for: 403 user_not_allowed', async () => {
  if (!env.MCP_TEST_KEY) throw new Skip('MCP_TEST_KEY is not set');
  const other = env.MCP_TEST_OTHER_USER || 'bob';
  const url = new URL(env.MCP_TEST_URL);
  url.searchParams.set('userId', other);
  const r = await rawPost(url, rawHeaders(), initializeBody);
  await rawDelete(r.headers.get('mcp-session-id'));
  assert(r.status === 403, `status ${r.status}: ${short(r.text)}`);
  assert(r.json && r.json.error && r.json.error.code === 'user_not_allowed', `body ${short(r.text)}`);
}, { transport: 'http' });

check('a foreign Origin gets 403', async () => {
  const evil = await rawPost(env.MCP_TEST_URL, rawHeaders({ Origin: 'http://evil.example.com' }), initializeBody);
  await rawDelete(evil.headers.get('mcp-session-id'));
  assert(evil.status === 403, `status ${evil.status}: ${short(evil.text)}`);
  assert(!evil.headers.get('mcp-session-id'), 'a session was opened anyway');
  // The same request from the server's own origin is served.
  const own = await rawPost(env.MCP_TEST_URL, rawHeaders({ Origin: new URL(env.MCP_TEST_URL).origin }), initializeBody);
  await rawDelete(own.headers.get('mcp-session-id'));
  assert(own.status === 200, `from its own origin: status ${own.status}: ${short(own.text)}`);
}, { transport: 'http' });

check('terminateSession, then the session id gets 404', async () => {
  const { client, transport } = await connect();
  const id = transport.sessionId;
  await run(client, 'globalThis.x = 1; return 1');  // the session has a sandbox to end
  await transport.terminateSession();
  assert(transport.sessionId === undefined, 'the SDK kept the session id (the DELETE was not taken)');
  const r = await rawPost(env.MCP_TEST_URL,
    rawHeaders({ 'Mcp-Session-Id': id, 'MCP-Protocol-Version': transport.protocolVersion || '2025-11-25' }),
    JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }));
  assert(r.status === 404, `a request with the ended session id got ${r.status}: ${short(r.text)}`);
  await client.close();
}, { transport: 'http' });

// A fetch for the SDK transport that drops the connection of the first SSE
// answer to a tools/call right after a progress event has come through (the
// socket closes, as when a proxy or the network cuts it), and records the
// GETs the client then sends to resume.
function droppingFetch(record) {
  let dropped = false;
  return async (url, init = {}) => {
    const method = (init.method || 'GET').toUpperCase();
    const headers = new Headers(init.headers);
    if (method === 'GET') record.gets.push({ lastEventId: headers.get('last-event-id') });
    const response = await fetch(url, init);
    if (method === 'GET' && headers.get('last-event-id')) record.getStatuses.push(response.status);
    const isCall = method === 'POST' && typeof init.body === 'string' && init.body.includes('"tools/call"');
    if (dropped || !isCall || !(response.headers.get('content-type') || '').includes('text/event-stream')) {
      return response;
    }
    dropped = true;
    const reader = response.body.getReader();
    let seen = '';
    let cut = false;
    const body = new ReadableStream({
      async pull(controller) {
        if (cut) {
          await reader.cancel();  // closes the socket: the server sees the client go
          record.cuts += 1;
          controller.error(new TypeError('terminated (connection dropped by the test)'));
          return;
        }
        const { value, done } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        seen += new TextDecoder().decode(value);
        if (seen.includes('notifications/progress')) cut = true;  // after this chunk is read
        controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

check('a dropped SSE answer resumes with Last-Event-ID and the block\'s result arrives', async () => {
  const record = { gets: [], getStatuses: [], cuts: 0 };
  const headers = {};
  if (env.MCP_TEST_KEY) headers.Authorization = `Bearer ${env.MCP_TEST_KEY}`;
  const transport = new StreamableHTTPClientTransport(new URL(env.MCP_TEST_URL),
    { requestInit: { headers }, fetch: droppingFetch(record) });
  const client = new Client({ name: 'mcp-harness-sdk-test-resume', version: '1.0.0' });
  client.onerror = (e) => clientErrors.push(e && e.message ? e.message : String(e));
  await client.connect(transport);
  try {
    await run(client, 'globalThis.beforeDrop = 41; return 1');
    const progress = [];
    const r = await execute(client, 'await new Promise(r => setTimeout(r, 3500)); return beforeDrop + 1', {},
      { onprogress: (p) => progress.push(p) });
    assert(record.cuts === 1, `the answer's stream was cut ${record.cuts} times (the check needs one cut)`);
    const resumed = record.gets.filter((g) => g.lastEventId);
    assert(resumed.length >= 1, `the client sent no GET with Last-Event-ID: ${short(record)}`);
    assert(/^\d+-\d+$/.test(resumed[0].lastEventId), `Last-Event-ID was ${resumed[0].lastEventId}`);
    assert(record.getStatuses[0] === 200, `the resuming GET got ${short(record.getStatuses)}`);
    assert(!r.isError && r.structuredContent.result === 42, `after the drop the block gave ${short(r)}`);
    assert(progress.length >= 1, 'no progress notification arrived before the drop');
    // The session goes on as before.
    assert(await run(client, 'return beforeDrop') === 41, 'the session lost its state');
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close();
  }
}, { transport: 'http' });

// --- approvals: the server's tool policy (TOOL_POLICY_FILE) asks before
// ${fsServer}__list_directory. A client that can be asked gets an elicitation;
// one that cannot is refused, with the reason.

check('a client without the elicitation capability is refused, saying why', async () => {
  assert(ctx.fsRoot, 'the filesystem check found no allowed directory');
  const out = await run(ctx.client, `try {
      await callMCPTool('${fsServer}__list_directory', {path: ${JSON.stringify(ctx.fsRoot)}});
      return 'listed';
    } catch (e) { return e.code + ': ' + e.message; }`);
  assert(String(out).startsWith('approval_denied: ') && String(out).includes('declared no elicitation capability'),
    `expected a refusal, got ${short(out)}`);
});

// Last before close: on stdio its client starts a second server, whose start-up
// sweep (the test gives both the same SANDBOX_OWNER) ends the main session's sandbox.
check('a call the policy asks about is an elicitation: accept runs it, decline refuses it', async () => {
  assert(ctx.fsRoot, 'the filesystem check found no allowed directory');
  const asked = [];
  const answers = [{ action: 'accept', content: { scope: 'call' } }, { action: 'decline' },
    { action: 'accept', content: { name: `Ann ${runId}` } }];
  const { client, transport } = await connect({
    capabilities: { elicitation: {} },
    onElicit: async (request) => {
      asked.push(request.params);
      return answers.shift();
    },
  });
  try {
    const code = `try {
        const r = await callMCPTool('${fsServer}__list_directory', {path: ${JSON.stringify(ctx.fsRoot)}});
        return 'listed ' + JSON.stringify(r).length;
      } catch (e) { return e.code + ': ' + e.message; }`;
    const first = await run(client, code);
    assert(String(first).startsWith('listed '), `the approved call did not run: ${short(first)}`);
    assert(asked.length === 1, `${asked.length} elicitations for one call`);
    const p = asked[0];
    assert(p.message.includes(`${fsServer}__list_directory`) && p.message.includes('rule 1'),
      `the message does not say which tool and why: ${p.message}`);
    assert(p.requestedSchema && p.requestedSchema.properties && p.requestedSchema.properties.scope,
      `no scope in the schema: ${short(p.requestedSchema)}`);
    const second = await run(client, code);
    assert(String(second).startsWith('approval_denied: ') && String(second).includes('the user declined'),
      `a declined call: ${short(second)}`);
    assert(asked.length === 2, `${asked.length} elicitations for two calls`);
    // An upstream server's own elicitation during a call reaches this client, and its answer goes back.
    const upstream = await run(client, `const r = await callMCPTool('everything__trigger-elicitation-request', {});
      return JSON.stringify(r);`);
    assert(asked.length === 3 && String(asked[2].message).includes('Please provide inputs'),
      `the upstream elicitation did not arrive: ${short(asked[2])}`);
    assert(String(upstream).includes(`Ann ${runId}`), `the server did not get the answer: ${short(upstream)}`);
    // run_task: the agent's block (the test's fake LLM writes one that lists
    // the shared folder) asks the same way, on this call's stream.
    answers.push({ action: 'accept', content: { scope: 'call' } });
    const task = await client.callTool({ name: 'run_task', arguments: { task: 'List the shared folder.' } },
      undefined, { timeout: 120000 });
    assert(!task.isError && task.content[0].text === 'The folder is listed.', `run_task: ${short(task)}`);
    assert(asked.length === 4 && String(asked[3].message).includes(`${fsServer}__list_directory`),
      `the run's approval: ${short(asked[3])}`);
  } finally {
    if (transportKind === 'http') await transport.terminateSession().catch(() => {});
    await client.close();
  }
});

// --- the end: the main session closes; for stdio the child must exit.

check('close', async () => {
  if (transportKind === 'http') await ctx.transport.terminateSession();
  await ctx.client.close();
  if (transportKind === 'stdio') {
    const until = Date.now() + 15000;
    for (;;) {
      try {
        process.kill(ctx.childPid, 0);
      } catch (e) {
        if (e.code === 'ESRCH') break;
        throw e;
      }
      assert(Date.now() < until, `the stdio child ${ctx.childPid} is still running 15 s after close`);
      await sleep(100);
    }
  }
}, { always: true });

// ---------------------------------------------------------------- runner

runChecks(checks, {
  transport: transportKind,
  only: env.MCP_TEST_ONLY ? env.MCP_TEST_ONLY.split(';').map((s) => s.trim()).filter(Boolean) : null,
  checkTimeoutMs: CHECK_TIMEOUT_MS,
  watchdogMs: WATCHDOG_MS,
  onFailures: () => [
    clientErrors.length ? `# client errors (not counted): ${short(clientErrors.slice(0, 5), 1000)}` : '',
    childStderr ? `# the stdio child's stderr (last part):\n${childStderr.slice(-6000)}` : '',
  ].filter(Boolean).join('\n'),
  onWatchdog: () => (childStderr ? `# the stdio child's stderr (last part):\n${childStderr.slice(-6000)}` : ''),
});
