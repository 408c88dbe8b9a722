'use strict';
// Baseline for the tool-call benchmark: a bare MCP client over stdio (NDJSON,
// no SDK) that initializes server-everything, calls its echo tool W times
// untimed (warm-up), then R rounds of N calls in sequence. Prints {"calls",
// "rounds"}: the milliseconds of each round. RELAY=path runs the server
// behind that program (bench/hop_relay.c), for the floor of one extra hop.
// With R = "stdin", it says {"ready":true} after the warm-up, then runs one
// round per line it reads and answers each with {"ms"}, until stdin ends:
// so a driver can interleave its rounds with other sides' (toolcall_rounds.py).
const { spawn } = require('child_process');
const path = require('path');

const n = Number(process.argv[2] || 1000);
const warm = Number(process.argv[3] || 0);
const rounds = Number(process.argv[4] || 1);
const server = path.join(__dirname, '..', 'servers', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
const command = [process.execPath, server, 'stdio'];
if (process.env.RELAY) command.unshift(process.env.RELAY);
const child = spawn(command[0], command.slice(1), { env, stdio: ['pipe', 'pipe', 'ignore'] });

let buffered = '';
const waiting = new Map();
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    const msg = JSON.parse(line);
    if (msg.id !== undefined && waiting.has(msg.id)) {
      waiting.get(msg.id)(msg);
      waiting.delete(msg.id);
    }
  }
});
let nextId = 0;
function request(method, params) {
  const id = ++nextId;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
}

async function round() {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const reply = await request('tools/call', { name: 'echo', arguments: { message: `m${i}` } });
    if (!reply.result) throw new Error(JSON.stringify(reply));
  }
  return Number(process.hrtime.bigint() - t) / 1e6;
}

(async () => {
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  for (let i = 0; i < warm; i++) await request('tools/call', { name: 'echo', arguments: { message: 'warm-up' } });
  if (process.argv[4] === 'stdin') {
    console.log(JSON.stringify({ ready: true }));
    for await (const _ of require('readline').createInterface({ input: process.stdin })) {
      console.log(JSON.stringify({ ms: await round() }));
    }
  } else {
    const times = [];
    for (let r = 0; r < rounds; r++) times.push(await round());
    console.log(JSON.stringify({ calls: n, rounds: times }));
  }
  child.kill();
})();
