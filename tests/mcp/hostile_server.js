#!/usr/bin/env node
// A hostile stdio MCP server (Node, no dependencies): its answers are too large,
// not JSON or cut short, and its tool lists are huge or badly named.
// Usage: node hostile_server.js <mode>
//   normal      the tools below
//   many_tools  lists 5,006 tools (t0 ... t5005)
//   bad_names   lists tools with an empty name, '/', '..', a space, a 129-character name,
//               a non-ASCII name, a duplicate, a number as name, no name, and two good ones
// Tools: echo {text}; huge {bytes, id_first}: an answer of that size, the id last (as
// the TypeScript SDK writes it) unless id_first; not_json: an answer that is not JSON;
// half_then_exit: half an answer, then exit 5; half_then_exit_keep_stdout: the same, but
// a child that lives on holds stdout open (its pid in the last stderr line); no_id_cut: a broken
// line without id (the answer comes never); hang: never answers; progress_forever: reports
// progress every 100 ms and never answers; huge_notification {bytes}: an oversized
// notifications/message before a normal answer; huge_request {bytes}: an oversized
// request to the client, then the client's answer to it as the result; deep {levels}:
// structuredContent nested that many arrays deep (default 200,000), deep_text: a
// text item holding such a document.
'use strict';
const { spawn } = require('child_process');
const { send, reply, fail, askClient, serve } = require('./stdio_jsonrpc');
const mode = process.argv[2] || 'normal';

function write(text) { process.stdout.write(text); }
function text(t) { return { content: [{ type: 'text', text: t }] }; }
const schema = { type: 'object' };

function tools() {
  if (mode === 'many_tools') return Array.from({ length: 5006 }, (_, i) => ({ name: 't' + i, inputSchema: schema }));
  if (mode === 'bad_names') {
    return [
      { name: '', description: 'empty' }, { name: 'a/b' }, { name: '..' }, { name: 'x..y' }, { name: 'sp ace' },
      { name: 'n'.repeat(129) }, { name: 'caf\u00e9' }, { name: 'good.name-1_X', description: 'first' },
      { name: 'good.name-1_X', description: 'second' }, { name: 5 }, { description: 'no name' }, { name: 'echo' },
    ].map((t) => ({ inputSchema: schema, ...t }));
  }
  return ['echo', 'huge', 'not_json', 'half_then_exit', 'half_then_exit_keep_stdout', 'no_id_cut', 'hang',
    'progress_forever', 'huge_notification', 'huge_request', 'deep', 'deep_text'].map((name) => ({ name, inputSchema: schema }));
}

async function call(id, name, args, progressToken) {
  const bytes = args.bytes ?? 2 * 1024 * 1024;
  switch (name) {
    case 'echo': return reply(id, text(args.text ?? ''));
    case 'huge': {
      const result = JSON.stringify(text('x'.repeat(bytes)));
      return write(args.id_first ? `{"jsonrpc":"2.0","id":${id},"result":${result}}\n`
        : `{"result":${result},"jsonrpc":"2.0","id":${id}}\n`);
    }
    case 'deep': {
      const levels = args.levels ?? 200000;
      return write(`{"jsonrpc":"2.0","id":${id},"result":{"content":[],"structuredContent":{"v":${'['.repeat(levels)}${']'.repeat(levels)}}}}\n`);
    }
    case 'deep_text': return reply(id, text('['.repeat(200000) + ']'.repeat(200000)));
    case 'not_json': return write(`{"jsonrpc":"2.0","id":${id},"result":{"content":[],"value":NaN}}\n`);
    case 'half_then_exit':
    case 'half_then_exit_keep_stdout': {
      let helper = '';
      if (name === 'half_then_exit_keep_stdout') {
        const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: ['ignore', 'inherit', 'inherit'] });
        helper = ' (helper pid ' + child.pid + ')';
      }
      const line = `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(text('y'.repeat(1000)))}}`;
      write(line.slice(0, line.length / 2));
      process.stderr.write('hostile_server: dying in the middle of an answer' + helper + '\n');
      return process.exit(5);
    }
    case 'hang': return;
    case 'progress_forever': {
      let progress = 0;
      const timer = setInterval(() => send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: ++progress } }), 100);
      timer.unref();
      return;
    }
    case 'no_id_cut': return write('{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"cut\n');
    case 'huge_notification':
      send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'z'.repeat(bytes) } });
      return reply(id, text('after the notification'));
    case 'huge_request': {
      const answer = await askClient('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'q'.repeat(bytes) } }] });
      return reply(id, { content: [{ type: 'text', text: 'asked' }], structuredContent: answer });
    }
    default: return fail(id, -32602, 'unknown tool ' + name);
  }
}

function handle(msg) {
  const p = msg.params || {};
  switch (msg.method) {
    case 'initialize':
      return reply(msg.id, { protocolVersion: p.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } });
    case 'tools/list': return reply(msg.id, { tools: tools() });
    case 'tools/call': return call(msg.id, p.name, p.arguments || {}, p._meta && p._meta.progressToken);
    default:
      if (msg.id !== undefined) fail(msg.id, -32601, 'method not found');
  }
}

serve(handle);
