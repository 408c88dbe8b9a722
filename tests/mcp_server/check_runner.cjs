// What the SDK client scripts of this folder share (sdk_client_test.cjs on
// the 1.x SDK, sdk2_client_test.cjs on 2.x): small assertions, and a runner
// that runs named checks in order, prints one line per check ("ok", "not ok"
// or "skip", its name, the time it took, and for a failure why), and gives
// up on the whole run after a watchdog time. Node 20, no dependencies.
'use strict';

class Skip extends Error {}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

function short(value, limit = 600) {
  let s;
  try {
    s = typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    s = String(value);
  }
  return s.length > limit ? `${s.slice(0, limit)}...` : s;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function textOf(result) {
  return (result.content || [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

// The stdio child the environment names (MCP_TEST_COMMAND, MCP_TEST_ARGS as
// a JSON array, default ["mcp"]; MCP_TEST_ENV_JSON, the child's whole
// environment; MCP_TEST_CWD), through the SDK's `Transport` class
// (StdioClientTransport); its stderr goes to `onStderr(text)`.
function stdioTransport(Transport, env, onStderr) {
  const t = new Transport({
    command: env.MCP_TEST_COMMAND,
    args: env.MCP_TEST_ARGS ? JSON.parse(env.MCP_TEST_ARGS) : ['mcp'],
    env: env.MCP_TEST_ENV_JSON ? JSON.parse(env.MCP_TEST_ENV_JSON) : {},
    cwd: env.MCP_TEST_CWD || undefined,
    stderr: 'pipe',
  });
  t.stderr.on('data', (d) => onStderr(d.toString()));
  return t;
}

// Runs `checks` ({name, fn, transport?, always?}) in order and exits the
// process: 0 when none failed. `transport`: a check with another transport
// is left out. `only`: parts of names to run (the `always` ones run anyway).
// `connectName`: once that check fails, the rest are not run. `onFailures()`
// and `onWatchdog()` return text printed after failures (a child's stderr).
function runChecks(checks, { transport, only = null, connectName = 'connect', checkTimeoutMs = 90000,
  watchdogMs = 240000, onFailures = () => '', onWatchdog = () => '' }) {
  async function main() {
    let failed = 0;
    let passed = 0;
    let connected = true;
    for (const c of checks) {
      if (c.transport && c.transport !== transport) continue;
      if (only && !c.always && !only.some((part) => c.name.includes(part))) continue;
      const started = Date.now();
      if (!connected) {
        console.log(`not ok - ${c.name}: not run, ${connectName} failed`);
        ++failed;
        continue;
      }
      try {
        await withTimeout(Promise.resolve().then(c.fn), checkTimeoutMs, c.name);
        console.log(`ok - ${c.name} (${Date.now() - started} ms)`);
        ++passed;
      } catch (e) {
        if (e instanceof Skip) {
          console.log(`skip - ${c.name}: ${e.message}`);
          continue;
        }
        ++failed;
        console.log(`not ok - ${c.name} (${Date.now() - started} ms): ${e && e.stack ? e.stack : e}`);
        if (c.name === connectName) connected = false;
      }
    }
    console.log(`# ${transport}: ${passed} passed, ${failed} failed`);
    const more = failed ? onFailures() : '';
    if (more) console.log(more);
    return failed;
  }
  const watchdog = setTimeout(() => {
    console.log(`not ok - the whole run took more than ${watchdogMs} ms`);
    const more = onWatchdog();
    if (more) console.log(more);
    process.exit(1);
  }, watchdogMs);
  main().then(
    (failed) => {
      clearTimeout(watchdog);
      process.exit(failed ? 1 : 0);
    },
    (e) => {
      console.log(`not ok - the runner failed: ${e && e.stack ? e.stack : e}`);
      process.exit(1);
    },
  );
}

module.exports = { Skip, assert, short, sleep, withTimeout, textOf, stdioTransport, runChecks };
