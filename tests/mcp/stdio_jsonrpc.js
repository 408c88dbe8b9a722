'use strict';
// What the stdio test servers (fault_server.js, hostile_server.js) share:
// newline-delimited JSON-RPC on stdin/stdout, and requests to the client whose
// answers come back as promises. No dependencies.
const waiting = new Map();  // our requests to the client, by id
let nextId = 1000;

function send(obj) { process.stdout.write(JSON.stringify(obj) + '\n'); }
function reply(id, result) { send({ jsonrpc: '2.0', id, result }); }
function fail(id, code, message) { send({ jsonrpc: '2.0', id, error: { code, message } }); }

// Sends a request to the client; resolves to {result} or {error} once it answers.
function askClient(method, params) {
  const id = nextId++;
  send({ jsonrpc: '2.0', id, method, params });
  return new Promise((resolve) => waiting.set(id, resolve));
}

// Reads stdin line by line: an answer to askClient resolves its promise, every other
// message goes to handle(msg). The process exits when stdin ends.
function serve(handle) {
  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      const resolve = msg.method === undefined && waiting.get(msg.id);
      if (resolve) {
        waiting.delete(msg.id);
        resolve(msg.error ? { error: msg.error } : { result: msg.result });
      } else if (msg.method !== undefined) {
        handle(msg);
      }
    }
  });
  process.stdin.on('end', () => process.exit(0));
}

module.exports = { send, reply, fail, askClient, serve };
