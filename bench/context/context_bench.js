// The context-size benchmark: one task over 1,000 records that flow through
// the real filesystem MCP server, run by the real server with a scripted LLM
// (the fake LLM server of the tests), against what direct tool calling would
// have sent to the LLM for the same work. Counts bytes of the request bodies
// and tokens (o200k_base, the GPT-4o tokenizer, via the gpt-tokenizer package)
// of every LLM request, since each request re-sends the whole context.
//   node context_bench.js <build dir> <work dir>
// Prints one JSON object. With CONTEXT_DUMP=<dir>, also writes each request
// body we sent there (request-1.json, ...), to read what the model is shown.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const { encode } = require('gpt-tokenizer/encoding/o200k_base');

const [buildDir, workDir] = process.argv.slice(2);
const root = path.resolve(__dirname, '../..');
const RECORDS = 1000;

function records() {
  const regions = ['north', 'south', 'east', 'west', 'central'];
  const plans = ['free', 'team', 'business', 'enterprise'];
  const lines = ['id,name,email,phone,region,plan,amount,created'];
  for (let i = 1; i <= RECORDS; i++) {
    const region = regions[(i * 7) % regions.length];
    const plan = plans[(i * 3) % plans.length];
    const amount = ((i * 7919) % 100000) / 100;
    const day = String(1 + (i % 28)).padStart(2, '0');
    lines.push(`${i},Customer ${i},customer${i}@example.com,+1 415 555 ${String(1000 + i).slice(-4)},${region},${plan},${amount.toFixed(2)},2026-10-${day}`);
  }
  return lines.join('\n') + '\n';
}

function start(command, args, env, needle) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      const m = out.match(needle);
      if (m) resolve({ child, match: m });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${command} exited ${code}: ${out.slice(-2000)}`)));
  });
}

async function json(url, options) {
  const response = await fetch(url, options);
  const body = await response.json();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

async function waitHealthy(port) {
  for (let i = 0; i < 300; i++) {
    try {
      const h = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
      const c = h.components;
      if (c.pool.ready >= 1 && c['mcp.fs'].status === 'up') return;
    } catch (e) { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the server did not become healthy');
}

const count = (text) => ({ bytes: Buffer.byteLength(text), tokens: encode(text).length });

async function main() {
  const files = path.join(workDir, 'files');
  fs.mkdirSync(files, { recursive: true });
  const csv = records();
  const csvPath = path.join(files, 'customers.csv');
  fs.writeFileSync(csvPath, csv);
  const task = 'customers.csv has our customers. Total the amounts per region, find the 5 biggest customers, ' +
    'and write the result to summary.json next to it.';

  // The code the model writes: the records stay in the sandbox.
  const code = `const {content: dirs} = await callMCPTool('fs__list_allowed_directories', {});
const root = dirs.split('\\n')[1];
const {content: csv} = await callMCPTool('fs__read_text_file', {path: root + '/customers.csv'});
const [header, ...lines] = csv.trim().split('\\n');
const keys = header.split(',');
const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [keys[i], v])));
const byRegion = {};
for (const r of rows) byRegion[r.region] = Math.round(((byRegion[r.region] || 0) + Number(r.amount)) * 100) / 100;
const top = [...rows].sort((a, b) => b.amount - a.amount).slice(0, 5).map((r) => ({id: r.id, email: r.email, amount: Number(r.amount)}));
await callMCPTool('fs__write_file', {path: root + '/summary.json', content: JSON.stringify({byRegion, top}, null, 1)});
return {records: rows.length, byRegion, top: top.map((t) => t.id)};`;
  const script = [
    { reply: { toolCalls: [{ id: 'call_1', name: 'execute_code', arguments: { code } }] } },
    { reply: { text: 'Done: summary.json holds the totals per region and the 5 biggest customers.' } },
  ];
  fs.writeFileSync(path.join(workDir, 'script.json'), JSON.stringify(script));

  const llm = await start(path.join(buildDir, 'tests/llm/fake_llm_server'),
    ['--port', '0', '--script', path.join(workDir, 'script.json')], {}, /listening http:\/\/127\.0\.0\.1:(\d+)/);
  const llmPort = llm.match[1];
  const env = {
    ENV_FILE: '/dev/null', PORT: '0', LOG_LEVEL: 'warn', SANDBOX_POOL_SIZE: '1', SANDBOX_OWNER: `bench-context-${process.pid}`,
    MCP_FS_ROOT: files, MEMORY_FILE_PATH: path.join(workDir, 'memory.jsonl'), STORE_PATH: path.join(workDir, 'harness.db'),
    LLM_BASE_URL: `http://127.0.0.1:${llmPort}/v1`, LLM_API_KEY: 'bench', MCP_CONFIG: path.join(root, 'servers/mcp.json'),
  };
  delete process.env.NODE_EXTRA_CA_CERTS;
  const server = await start(path.join(buildDir, 'src/mcp-harness'), [], { ...env, LOG_LEVEL: 'info' },
    /listening on http:\/\/[^:]+:(\d+)/);
  const port = server.match[1];
  try {
    await waitHealthy(port);
    const result = await json(`http://127.0.0.1:${port}/task`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ userId: 'bench', task }),
    });
    if (result.status !== 'succeeded') throw new Error(`the task did not succeed: ${JSON.stringify(result)}`);
    const summary = JSON.parse(fs.readFileSync(path.join(files, 'summary.json'), 'utf8'));
    if (summary.top.length !== 5 || !summary.top[0].email.endsWith('@example.com')) {
      throw new Error('summary.json is not what the code should have written');
    }
    // Re-serialised compactly, as the server sent them.
    const sent = await json(`http://127.0.0.1:${llmPort}/_fake/requests`);
    const ours = sent.map((r) => count(JSON.stringify(r.body)));
    if (process.env.CONTEXT_DUMP) {
      fs.mkdirSync(process.env.CONTEXT_DUMP, { recursive: true });
      sent.forEach((r, i) => fs.writeFileSync(path.join(process.env.CONTEXT_DUMP, `request-${i + 1}.json`),
        JSON.stringify(r.body, null, 1)));
    }

    // Direct tool calling of the same work, in the same wire format (OpenAI
    // Chat Completions): every tool of the connected servers in every request,
    // and every result and argument in the context from then on.
    const listed = (await json(`http://127.0.0.1:${port}/tools`)).tools;
    const tools = [];
    for (const t of listed) {
      const d = await json(`http://127.0.0.1:${port}/tools/${encodeURIComponent(t.name)}`);
      tools.push({ type: 'function', function: { name: d.name, description: d.description, parameters: d.inputSchema } });
    }
    const model = sent[0].body.model;
    const system = { role: 'system', content: 'You are a helpful assistant. Use the tools to complete the task.' };
    const messages = [system, { role: 'user', content: task }];
    const requests = [];
    const send = () => requests.push(JSON.stringify({ model, messages, tools, max_tokens: 4096 }));
    const call = (id, name, args, result) => {
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });
      messages.push({ role: 'tool', tool_call_id: id, content: result });
    };
    send();
    call('call_1', 'fs__list_allowed_directories', {}, `Allowed directories:\n${files}`);
    send();
    call('call_2', 'fs__read_text_file', { path: csvPath }, csv);
    send();
    // The model computes the summary itself and writes it out as arguments.
    call('call_3', 'fs__write_file', { path: path.join(files, 'summary.json'), content: JSON.stringify(summary, null, 1) },
      `Successfully wrote to ${path.join(files, 'summary.json')}`);
    send();
    const direct = requests.map(count);

    const sum = (list, key) => list.reduce((a, r) => a + r[key], 0);
    console.log(JSON.stringify({
      records: RECORDS, csvBytes: Buffer.byteLength(csv), tools: tools.length,
      ours: { requests: ours.length, bytes: sum(ours, 'bytes'), tokens: sum(ours, 'tokens'), perRequest: ours },
      direct: { requests: direct.length, bytes: sum(direct, 'bytes'), tokens: sum(direct, 'tokens') },
      tokenizer: 'o200k_base (gpt-tokenizer)',
    }));
  } finally {
    server.child.kill('SIGTERM');
    llm.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
  }
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
