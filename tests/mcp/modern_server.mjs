#!/usr/bin/env node
// A real MCP server of the 2026-07-28 era only: the official TypeScript SDK
// 2.x server (@modelcontextprotocol/server 2.4.0, tests/mcp/versions), served
// by its own entries with the 2025 era refused (serveStdio / createMcpHandler
// with legacy: 'reject'): an `initialize` gets the unsupported-protocol-version
// error -32022 (over HTTP with 400). For the client's new-era tests.
// Usage: node modern_server.mjs stdio
//        node modern_server.mjs http <port>   (Streamable HTTP at http://127.0.0.1:<port>/mcp)
// Tools: echo {text}; add {a, b} -> {sum}; ask {question}: a multi round-trip
// request (input_required with one form elicitation `answer` and the
// requestState "asked", then "answer: <answer>" or "declined"); slow {ms}: a
// task (Tasks extension io.modelcontextprotocol/tasks) when the request
// declares the extension, "slept <ms> ms" when done; meta: the request's
// _meta and (http) its MCP-Protocol-Version, Mcp-Method, Mcp-Name and traceparent headers,
// as JSON text; tasks: every task so far with its status, as JSON text;
// add_tool: adds the tool `extra` (answers "extra") to tools/list for every
// later request and connection of this process, and publishes
// notifications/tools/list_changed on every open subscriptions/listen stream
// that asked for it (capabilities: tools.listChanged); listening: how many
// listen streams are open (http; null over stdio), as JSON text; sleep {ms}:
// sleeps, never a task; hangups: (http) the POSTs whose client closed the
// connection before their answer, by Mcp-Name (or Mcp-Method), and the
// methods of the notifications POSTed, as JSON text (null over stdio).
// The SDK has no Tasks runtime on this era (its task types are 2025-11-25
// vocabulary), so the tasks live here: tasks/get, tasks/update, tasks/cancel.
// MODERN_SERVER_WIRE_LOG=<file> (http) appends each exchange to <file> (a
// subscriptions/listen stream once it ends).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';

const sdk = (p) => import(new URL(`./versions/node_modules/@modelcontextprotocol/server/dist/${p}`, import.meta.url).href);
const { McpServer, createMcpHandler, fromJsonSchema, inputRequired, inputResponse, ProtocolError, ProtocolErrorCode,
  MissingRequiredClientCapabilityError } = await sdk('index.mjs');
const { serveStdio } = await sdk('stdio.mjs');

const [mode = 'stdio', port = '0'] = process.argv.slice(2);
const TASKS = 'io.modelcontextprotocol/tasks';
const object = (properties, required = Object.keys(properties)) => fromJsonSchema({ type: 'object', properties, required });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

// Tasks outlive the per-request (http) or per-connection (stdio) instances.
const tasks = new Map();
const declaresTasks = (ctx) => !!ctx.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS];
function taskView(task) {
  const { timer, ...view } = task;
  return view;
}
function startTask(ms) {
  const now = new Date().toISOString();
  const task = { taskId: `task_${randomUUID()}`, status: 'working', createdAt: now, lastUpdatedAt: now,
    ttlMs: 600000, pollIntervalMs: 100 };
  task.timer = setTimeout(() => Object.assign(task, {
    status: 'completed', lastUpdatedAt: new Date().toISOString(), result: { ...text(`slept ${ms} ms`), isError: false },
  }), ms);
  tasks.set(task.taskId, task);
  return task;
}
function findTask(params, ctx) {
  if (!declaresTasks(ctx)) {
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
  }
  const task = tasks.get(params.taskId);
  if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `task not found: ${params.taskId}`);
  return task;
}

// add_tool is process-wide: every instance made after it has `extra`. The
// listen streams are the entries' own: over stdio serveStdio routes the one
// pinned instance's notifications/tools/list_changed (sent by registerTool on
// a connected instance) onto the connection's subscriptions; over http the
// per-request instance's is dropped (it belongs to no request), and the
// handler's notify.toolsChanged() publishes on its bus instead.
let extraAdded = false;
let publishToolsChanged = () => {};
let listeners = () => null;  // open listen streams (http: the handler's bus; stdio: not known)
let hangups = null;  // http: {closed: {name: count}, notified: [method]}
const registerExtra = (server) => server.registerTool('extra', { description: 'Answers "extra"' }, async () => text('extra'));

function makeServer() {
  const server = new McpServer({ name: 'modern-server', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, extensions: { [TASKS]: {} } } });
  server.registerTool('echo', { description: 'Echoes the text', inputSchema: object({ text: { type: 'string' } }) },
    async ({ text: t }) => text(t));
  server.registerTool('add', {
    description: 'Adds two numbers',
    inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }),
    outputSchema: object({ sum: { type: 'number' } }),
  }, async ({ a, b }) => ({ ...text(String(a + b)), structuredContent: { sum: a + b } }));
  server.registerTool('ask', { description: 'Asks the user a question (multi round-trip)',
    inputSchema: object({ question: { type: 'string' } }) }, async ({ question }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'answer');
      if (answer.kind === 'elicit') {
        // The retry must echo the requestState of the first answer verbatim.
        if (ctx.mcpReq.requestState() !== 'asked') {
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'the retry lacks requestState "asked"');
        }
        return text(answer.action === 'accept' ? `answer: ${answer.content?.answer}` : 'declined');
      }
      return inputRequired({
        requestState: 'asked',
        inputRequests: {
          answer: inputRequired.elicit({
            message: question,
            requestedSchema: { type: 'object', properties: { answer: { type: 'string' }, ok: { type: 'boolean' } },
              required: ['answer'] },
          }),
        },
      });
    });
  server.registerTool('slow', { description: 'Sleeps ms milliseconds; a task when the client takes tasks',
    inputSchema: object({ ms: { type: 'number' } }) }, async ({ ms }, ctx) => {
      if (declaresTasks(ctx)) return { resultType: 'task', ...taskView(startTask(ms)) };
      await new Promise((resolve) => setTimeout(resolve, ms));
      return text(`slept ${ms} ms`);
    });
  server.registerTool('sleep', { description: 'Sleeps ms milliseconds (never a task)',
    inputSchema: object({ ms: { type: 'number' } }) }, async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return text(`slept ${ms} ms`);
    });
  server.registerTool('hangups', { description: 'POSTs left by their client before the answer, notifications POSTed' },
    async () => text(JSON.stringify(hangups)));
  server.registerTool('tasks', { description: 'Every task so far: [{taskId, status}]' }, async () =>
    text(JSON.stringify([...tasks.values()].map(({ taskId, status }) => ({ taskId, status })))));
  server.registerTool('meta', { description: "The request's _meta and MCP headers" }, async (ctx) => {
    const headers = ctx.http?.req?.headers;
    const seen = { _meta: { ...ctx.mcpReq.envelope, ...ctx.mcpReq._meta } };
    if (headers) {
      const names = ['MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'traceparent'];
      seen.headers = Object.fromEntries(names.map((h) => [h, headers.get(h)]));
    }
    return text(JSON.stringify(seen));
  });
  server.registerTool('listening', { description: 'The open subscriptions/listen streams (http), or null' },
    async () => text(JSON.stringify({ listening: listeners() })));
  server.registerTool('add_tool', { description: 'Adds the tool extra, and says so on the listen streams' }, async () => {
    if (extraAdded) return text('extra was already there');
    extraAdded = true;
    registerExtra(server);
    publishToolsChanged();
    return text('added extra');
  });
  if (extraAdded) registerExtra(server);

  const taskId = object({ taskId: { type: 'string' } });
  server.server.setRequestHandler('tasks/get', { params: taskId }, async (params, ctx) => taskView(findTask(params, ctx)));
  server.server.setRequestHandler('tasks/cancel', { params: taskId }, async (params, ctx) => {
    const task = findTask(params, ctx);
    if (task.status === 'working') {
      clearTimeout(task.timer);
      Object.assign(task, { status: 'cancelled', statusMessage: 'cancelled by tasks/cancel',
        lastUpdatedAt: new Date().toISOString() });
    }
    return {};
  });
  // No task here ever asks for input, so an update has nothing to deliver
  // (the SDK lifts params.inputResponses into ctx.mcpReq.inputResponses).
  server.server.setRequestHandler('tasks/update', { params: taskId }, async (params, ctx) => (findTask(params, ctx), {}));
  return server;
}

const onerror = (error) => console.error(`modern_server: ${error.message}`);  // stderr: stdout is the protocol

if (mode === 'stdio') {
  serveStdio(() => makeServer(), { legacy: 'reject', onerror });
} else if (mode === 'http') {
  const handler = createMcpHandler(() => makeServer(), { legacy: 'reject', onerror });
  publishToolsChanged = () => handler.notify.toolsChanged();
  listeners = () => handler.bus.listenerCount;
  hangups = { closed: {}, notified: [] };
  const wireLog = process.env.MODERN_SERVER_WIRE_LOG;
  const httpServer = http.createServer(async (req, res) => {
    const url = new URL(req.url, `http://${req.headers.host ?? '127.0.0.1'}`);
    if (url.pathname !== '/mcp') { res.writeHead(404).end(); return; }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    // The client going away aborts the request: that ends a listen stream.
    const gone = new AbortController();
    let answered = false;
    res.on('close', () => {
      gone.abort();
      if (answered || req.method !== 'POST') return;
      const name = req.headers['mcp-name'] ?? req.headers['mcp-method'] ?? '?';
      hangups.closed[name] = (hangups.closed[name] ?? 0) + 1;
    });
    try {
      const method = JSON.parse(body.toString()).method;
      if (typeof method === 'string' && method.startsWith('notifications/')) hangups.notified.push(method);
    } catch {
      // not JSON: the handler says so
    }
    const request = new Request(url, {
      method: req.method,
      signal: gone.signal,
      headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
      body: ['GET', 'HEAD'].includes(req.method) ? undefined : body,
    });
    const response = await handler.fetch(request)
      .catch((error) => new Response(String(error), { status: 500 }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    let answer = '';
    if (response.body) {
      for await (const chunk of response.body) {
        res.write(chunk);
        if (wireLog) answer += Buffer.from(chunk).toString();
      }
    }
    answered = true;
    res.end();
    if (wireLog) {
      appendFileSync(wireLog, `${JSON.stringify({
        request: { method: req.method, url: req.url, headers: req.headers, body: body.toString() },
        response: { status: response.status, headers: Object.fromEntries(response.headers), body: answer },
      })}\n`);
    }
  });
  httpServer.listen(Number(port), '127.0.0.1', () => process.stdout.write(`listening ${httpServer.address().port}\n`));
} else {
  throw new Error(`unknown mode ${mode}`);
}
