#!/usr/bin/env node
// A misbehaving MCP server for the client's fault tests (Node, no dependencies).
// Usage: node fault_server.js <mode>
//   normal        a well-behaved server with the tools below
//   garbage       also writes to stdout what fails no request: text lines, whole objects without id
//                 that are not JSON (invalid UTF-8, a broken member) and one huge text line
//                 (hostile_server.js has the broken answers that do fail requests)
//   stderr_flood  writes ~32 MB to stderr at start and more on every call
//   bad_version   answers initialize with protocol version 1999-01-01
//   endless_pages tools/list always has a nextCursor
//   crash_on_start exits with status 7 before answering anything
//   crash_in_initialize  exits with status 4 when initialize arrives
//   silent_before_initialize  answers nothing before initialize (server/discover included)
//   bad_tools_list       answers tools/list with {"tools": "not a list"}
//   slow_start           reads nothing for 30 s after it starts
// Tools: echo {text}, crash (exits mid-call), hang (never answers; remembers cancellations),
// cancelled (lists the request ids we were told to cancel), progress {steps, interval_ms},
// ask_client (sends ping, roots/list, sampling/createMessage, elicitation/create to the client
// and returns the answers), add_tool (adds tool "added" and sends tools/list_changed), fail (isError),
// leak {name, ask?} (the environment variable `name` everywhere it can go: an elicitation when
// `ask`, the result, with quotes
// around it in JSON text, stderr, a log notification, and as an isError result with `fail: true`),
// env_is {name, value} (whether the variable holds exactly `value`).
'use strict';
const { send, reply, fail, askClient, serve } = require('./stdio_jsonrpc');
const mode = process.argv[2] || 'normal';
const cancelled = [];
let extraTool = false;

function text(t) { return { content: [{ type: 'text', text: typeof t === 'string' ? t : JSON.stringify(t) }] }; }
function garbage() {
  if (mode !== 'garbage') return;
  process.stdout.write('this is not json\n');
  process.stdout.write(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]));  // {"a":"\xff\xfe"}
  process.stdout.write('{"jsonrpc":"2.0", "broken"}\n');  // whole, but no id: it answers nothing
  process.stdout.write('x'.repeat(2 * 1024 * 1024) + '\n');  // over the test's 1 MiB cap
  process.stdout.write('\n   \n');
}
function flood(bytes) {
  if (mode !== 'stderr_flood') return;
  const line = 'e'.repeat(1023) + '\n';
  for (let i = 0; i < bytes / 1024; i++) process.stderr.write(line);
}
function tools() {
  const t = [
    { name: 'echo', description: 'Echoes the text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    { name: 'crash', description: 'Exits the process in the middle of the call', inputSchema: { type: 'object' } },
    { name: 'hang', description: 'Never answers', inputSchema: { type: 'object' } },
    { name: 'cancelled', description: 'Request ids the client cancelled', inputSchema: { type: 'object' } },
    { name: 'progress', description: 'Sends progress notifications, then answers', inputSchema: { type: 'object' } },
    { name: 'ask_client', description: 'Sends requests to the client', inputSchema: { type: 'object' } },
    { name: 'add_tool', description: 'Adds a tool and sends list_changed', inputSchema: { type: 'object' } },
    { name: 'fail', description: 'Returns an error result', inputSchema: { type: 'object' } },
    { name: 'leak', description: 'Sends an environment variable everywhere', inputSchema: { type: 'object' } },
    { name: 'env_is', description: 'Whether an environment variable holds a value', inputSchema: { type: 'object' } },
  ];
  if (extraTool) t.push({ name: 'added', description: 'Added at run time', inputSchema: { type: 'object' } });
  return t;
}

async function call(id, name, args, meta) {
  flood(1024 * 1024);
  garbage();
  switch (name) {
    case 'echo': return reply(id, text(args.text ?? ''));
    case 'crash': process.stderr.write('fault_server: crashing on purpose\n'); process.exit(3);
    case 'hang': return;  // never answer
    case 'cancelled': return reply(id, text(cancelled));
    case 'progress': {
      const steps = args.steps ?? 5, interval = args.interval_ms ?? 100;
      for (let i = 1; i <= steps; i++) {
        await new Promise((r) => setTimeout(r, interval));
        if (meta && meta.progressToken !== undefined) {
          send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: meta.progressToken, progress: i, total: steps } });
        }
      }
      return reply(id, text({ steps }));
    }
    case 'ask_client': {
      const answers = {};
      for (const m of ['ping', 'roots/list', 'sampling/createMessage', 'elicitation/create', 'no/such/method']) {
        answers[m] = await askClient(m, m === 'ping' ? undefined : {});
      }
      return reply(id, { content: [{ type: 'text', text: 'asked' }], structuredContent: answers });
    }
    case 'add_tool':
      extraTool = true;
      send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      return reply(id, text('added'));
    case 'fail': return reply(id, { content: [{ type: 'text', text: 'it went wrong' }], isError: true });
    case 'leak': {
      const value = process.env[args.name] ?? '';
      process.stderr.write(`fault_server: leaking ${value}\n`);
      send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `log ${value}` } });
      if (args.ask) {
        await askClient('elicitation/create', {
          message: `ask ${value}`,
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        });
      }
      const body = JSON.stringify({ value, quoted: `"${value}"` });
      return reply(id, { content: [{ type: 'text', text: body }], isError: !!args.fail });
    }
    case 'env_is': return reply(id, text({ same: process.env[args.name] === args.value }));
    default: return fail(id, -32602, 'unknown tool ' + name);
  }
}

let initialized = false;

function handle(msg) {
  const p = msg.params || {};
  // As some servers of the 2025 era do: no answer at all before initialize.
  if (mode === 'silent_before_initialize' && !initialized && msg.method !== 'initialize') return;
  switch (msg.method) {
    case 'initialize':
      initialized = true;
      if (mode === 'crash_in_initialize') {
        process.stderr.write('fault_server: crashing in initialize\n');
        process.exit(4);
      }
      garbage();
      return reply(msg.id, {
        protocolVersion: mode === 'bad_version' ? '1999-01-01' : p.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'fault-server', version: '1.0.0' },
      });
    case 'notifications/initialized': return;
    case 'notifications/cancelled': cancelled.push(p.requestId); return;
    case 'ping': return reply(msg.id, {});
    case 'tools/list':
      if (mode === 'bad_tools_list') return reply(msg.id, { tools: 'not a list' });
      if (mode === 'endless_pages') {
        const n = Number(p.cursor || 0) + 1;
        return reply(msg.id, { tools: [{ name: 'page' + n, inputSchema: { type: 'object' } }], nextCursor: String(n) });
      }
      return reply(msg.id, { tools: tools() });
    case 'tools/call': return call(msg.id, p.name, p.arguments || {}, p._meta);
    default:
      if (msg.id !== undefined) fail(msg.id, -32601, 'method not found');
  }
}

if (mode === 'crash_on_start') { process.stderr.write('fault_server: cannot start\n'); process.exit(7); }
flood(32 * 1024 * 1024);
if (mode === 'slow_start') setTimeout(() => serve(handle), 30000);
else serve(handle);
