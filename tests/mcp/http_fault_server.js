#!/usr/bin/env node
// A Streamable HTTP MCP server for the client's HTTP tests (Node, no dependencies).
// Usage: node http_fault_server.js <port>   (listens on 127.0.0.1)
// Tools: headers (returns the request headers we care about), expire (forgets every
// session, so the next request gets a 404), stats (initialize/DELETE counts),
// batch (answers with a JSON array: a notification and the response).
// Hostile answers: huge_json / huge_json_chunked / huge_sse {bytes} (a body with or without
// Content-Length / an SSE event of that size),
// bad_json / bad_sse (not JSON), deep_json / deep_sse (structuredContent nested 200,000
// arrays deep), cut_json / cut_sse (the connection ends halfway).
'use strict';
const http = require('http');
const port = Number(process.argv[2]);
const sessions = new Set();
let initializes = 0, deletes = 0, nextSession = 1;

function json(res, status, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}
const text = (t) => ({ content: [{ type: 'text', text: JSON.stringify(t) }] });
const hostile = ['huge_json', 'huge_json_chunked', 'huge_sse', 'bad_json', 'bad_sse', 'deep_json', 'deep_sse', 'cut_json', 'cut_sse'];

// Answers that are too large, not JSON, or cut short, as a JSON body or an SSE event.
function hostileAnswer(res, name, id, args) {
  const answer = (body) => `{"result":${body},"jsonrpc":"2.0","id":${id}}`;
  const big = answer(JSON.stringify({ content: [{ type: 'text', text: 'x'.repeat(args.bytes ?? 2 * 1024 * 1024) }] }));
  const notJson = `{"jsonrpc":"2.0","id":${id},"result":{"content":[],"value":NaN}}`;
  const whole = answer(JSON.stringify({ content: [{ type: 'text', text: 'y'.repeat(1000) }] }));
  const deep = answer(`{"content":[],"structuredContent":{"v":${'['.repeat(200000)}${']'.repeat(200000)}}}`);
  const sse = () => res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  switch (name) {
    case 'huge_json': res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': big.length }); return res.end(big);
    case 'huge_json_chunked': res.writeHead(200, { 'Content-Type': 'application/json' }); return res.end(big);
    case 'bad_json': res.writeHead(200, { 'Content-Type': 'application/json' }); return res.end(notJson);
    case 'huge_sse': sse(); return res.end(`event: message\ndata: ${big}\n\n`);
    case 'bad_sse': sse(); return res.end(`event: message\ndata: ${notJson}\n\n`);
    case 'deep_json': res.writeHead(200, { 'Content-Type': 'application/json' }); return res.end(deep);
    case 'deep_sse': sse(); return res.end(`event: message\ndata: ${deep}\n\n`);
    case 'cut_json':
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': whole.length });
      return res.write(whole.slice(0, 500), () => res.socket.destroy());
    case 'cut_sse':
      sse();
      return res.write(`event: message\ndata: ${whole.slice(0, 500)}`, () => res.socket.destroy());
  }
}

http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'GET') return json(res, 405, { error: 'no GET stream here' });
    if (req.method === 'DELETE') { if (sessions.delete(sid)) deletes++; return json(res, 200, {}); }
    let msg;
    try { msg = JSON.parse(body); } catch (e) { return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }); }
    if (msg.method === 'initialize') {
      initializes++;
      const id = 'session-' + nextSession++;
      sessions.add(id);
      return json(res, 200, { jsonrpc: '2.0', id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'http-fault', version: '1' } } }, { 'Mcp-Session-Id': id });
    }
    if (!sessions.has(sid)) return json(res, 404, { jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32001, message: 'session not found' } });
    if (msg.id === undefined) { res.writeHead(202); return res.end(); }
    const reply = (result) => json(res, 200, { jsonrpc: '2.0', id: msg.id, result });
    switch (msg.method) {
      case 'tools/list':
        return reply({ tools: ['headers', 'expire', 'stats', 'batch', ...hostile].map((name) => ({ name, inputSchema: { type: 'object' } })) });
      case 'tools/call':
        if (hostile.includes(msg.params.name)) return hostileAnswer(res, msg.params.name, msg.id, msg.params.arguments || {});
        switch (msg.params.name) {
          case 'headers': return reply(text({ authorization: req.headers['authorization'], version: req.headers['mcp-protocol-version'], accept: req.headers['accept'], session: sid }));
          case 'expire': sessions.clear(); return reply(text('expired'));
          case 'stats': return reply(text({ initializes, deletes }));
          case 'batch': return json(res, 200, [{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } }, { jsonrpc: '2.0', id: msg.id, result: text('batched') }]);
        }
        return json(res, 200, { jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: 'unknown tool' } });
      default:
        return json(res, 200, { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'method not found' } });
    }
  });
}).listen(port, '127.0.0.1', () => process.stderr.write('listening on ' + port + '\n'));
