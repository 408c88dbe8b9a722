#!/usr/bin/env node
// A real MCP server of one protocol era: the official TypeScript SDK at the
// last release of that version (tests/mcp/versions/package.json), with tools
// shaped as servers of that era shape them (no title, outputSchema,
// structuredContent or annotations where the version has none).
// Usage: node versioned_server.mjs <version> stdio
//        node versioned_server.mjs <version> http <port>   (Streamable HTTP at http://127.0.0.1:<port>/mcp)
//        node versioned_server.mjs <version> sse <port>    (HTTP+SSE: GET /sse, POST /messages; up to 2025-03-26)
// <version>: 2024-11-05 | 2025-03-26 | 2025-06-18 | 2025-11-25
// Tools: echo {text}; add {a, b} -> {sum} (structured from 2025-06-18 on, JSON text before);
// fail: an isError result; throws: a JSON-RPC error with data; headers: the
// MCP-Protocol-Version and traceparent headers of the request that carried
// the call (http only) and the traceparent of the call's _meta.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';

const [version, mode = 'stdio', port = '0'] = process.argv.slice(2);
const sdkDir = new URL(`./versions/node_modules/sdk-${version}/`, import.meta.url);
const esm = (p) => import(new URL(p, sdkDir).href);
// 1.0.4 keeps its ES modules in dist/, later releases in dist/esm/.
const base = existsSync(new URL('dist/esm/', sdkDir)) ? 'dist/esm/' : 'dist/';
const { Server } = await esm(`${base}server/index.js`);
const types = await esm(`${base}types.js`);
const { ListToolsRequestSchema, CallToolRequestSchema, McpError, ErrorCode, LATEST_PROTOCOL_VERSION } = types;
if (LATEST_PROTOCOL_VERSION !== version) throw new Error(`sdk-${version} speaks ${LATEST_PROTOCOL_VERSION}`);

const structured = version >= '2025-06-18';  // structuredContent, outputSchema, title
const annotated = version >= '2025-03-26';   // tool annotations
let lastVersionHeader = null;
let lastTraceparent = null;

function tool(name, description, properties, extra = {}) {
  const t = { name, description, inputSchema: { type: 'object', properties } };
  if (structured) t.title = name[0].toUpperCase() + name.slice(1);
  if (annotated) t.annotations = { readOnlyHint: true };
  return { ...t, ...(structured ? extra : {}) };
}

function makeServer() {
  const server = new Server({ name: `sdk-${version}`, version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      tool('echo', 'Echoes the text', { text: { type: 'string' } }),
      tool('add', 'Adds two numbers', { a: { type: 'number' }, b: { type: 'number' } },
        { outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] } }),
      tool('fail', 'Always fails as a tool result', {}),
      tool('throws', 'Always fails as a JSON-RPC error', {}),
      tool('headers', 'The MCP-Protocol-Version header of this call', {}),
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments || {};
    switch (request.params.name) {
      case 'echo': return { content: [{ type: 'text', text: String(args.text ?? '') }] };
      case 'add': {
        const sum = Number(args.a) + Number(args.b);
        const text = { content: [{ type: 'text', text: JSON.stringify({ sum }) }] };
        return structured ? { ...text, structuredContent: { sum } } : text;
      }
      case 'fail': return { isError: true, content: [{ type: 'text', text: `the tool failed (${version})` }] };
      case 'throws': throw new McpError(ErrorCode.InvalidParams, 'bad arguments', { field: 'x' });
      case 'headers': {
        const seen = { version: lastVersionHeader, traceparent: lastTraceparent,
          metaTraceparent: request.params._meta?.traceparent ?? null };
        return { content: [{ type: 'text', text: JSON.stringify(seen) }] };
      }
      default: throw new McpError(ErrorCode.MethodNotFound, `no tool ${request.params.name}`);
    }
  });
  return server;
}

if (mode === 'stdio') {
  const { StdioServerTransport } = await esm(`${base}server/stdio.js`);
  await makeServer().connect(new StdioServerTransport());
} else if (mode === 'http') {
  const { StreamableHTTPServerTransport } = await esm(`${base}server/streamableHttp.js`);
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    lastVersionHeader = req.headers['mcp-protocol-version'] ?? null;
    lastTraceparent = req.headers.traceparent ?? null;
    const id = req.headers['mcp-session-id'];
    let transport = id && sessions.get(id);
    if (!transport) {
      if (id) { res.writeHead(404).end(); return; }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  httpServer.listen(Number(port), '127.0.0.1', () => process.stdout.write(`listening ${httpServer.address().port}\n`));
} else if (mode === 'sse') {
  const { SSEServerTransport } = await esm(`${base}server/sse.js`);
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    lastVersionHeader = req.headers['mcp-protocol-version'] ?? null;
    const url = new URL(req.url, 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      res.on('close', () => transports.delete(transport.sessionId));
      await makeServer().connect(transport);
    } else if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId'));
      if (!transport) { res.writeHead(404).end(); return; }
      await transport.handlePostMessage(req, res);
    } else {
      res.writeHead(404).end();
    }
  });
  httpServer.listen(Number(port), '127.0.0.1', () => process.stdout.write(`listening ${httpServer.address().port}\n`));
} else {
  throw new Error(`unknown mode ${mode}`);
}
