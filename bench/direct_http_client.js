'use strict';
// Baseline for the remote tool-call benchmark: a bare Streamable HTTP MCP
// client (Node's fetch, kept-alive connections, no SDK) that initializes
// server-everything at URL, calls its echo tool W times untimed (warm-up),
// then R rounds of N calls in sequence. An answer may come as JSON or as an
// SSE stream; the stream's `data:` line is the answer. Prints {"calls",
// "rounds"}: the milliseconds of each round.
//   node bench/direct_http_client.js URL N W R
const url = process.argv[2];
const n = Number(process.argv[3] || 1000);
const warm = Number(process.argv[4] || 0);
const rounds = Number(process.argv[5] || 1);

let session;
let nextId = 0;
async function post(message) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  if (session) {
    headers['Mcp-Session-Id'] = session;
    headers['MCP-Protocol-Version'] = '2025-11-25';
  }
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) });
  if (!session) session = res.headers.get('mcp-session-id');
  const text = await res.text();
  if (message.id === undefined) return null;
  if ((res.headers.get('content-type') || '').startsWith('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim());
    return JSON.parse(data[data.length - 1]);
  }
  return JSON.parse(text);
}
const request = (method, params) => post({ jsonrpc: '2.0', id: ++nextId, method, params });

(async () => {
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  for (let i = 0; i < warm; i++) await request('tools/call', { name: 'echo', arguments: { message: 'warm-up' } });
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const reply = await request('tools/call', { name: 'echo', arguments: { message: `m${i}` } });
      if (!reply.result) throw new Error(JSON.stringify(reply));
    }
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  console.log(JSON.stringify({ calls: n, rounds: times }));
})();
