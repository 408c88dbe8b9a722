#!/usr/bin/env bash
# What a user-scoped MCP server ("scope": "user") costs against a shared one,
# side by side in one server: the same npm memory server configured twice,
# `memory` per user and `shared` for everyone. For each of BENCH_USERS new
# users, one /execute block times (inside the sandbox, with Date.now()):
#   first  - the user's first call of memory__read_graph (their instance starts)
#   warm   - the next calls of it (their instance is running), mean of a run
#   shared - calls of shared__read_graph (one instance for all), mean of a run
#   masked - calls of masked__read_graph: the same user-scoped server, but its
#            env names ${secret:BENCH_TOKEN} (set for each user over HTTP), so
#            every result is searched for the user's value; beside `warm`, with
#            a ~16 KB graph in both
#   bench/user_servers_bench.sh        (BENCH_USERS=8 BENCH_CALLS=20)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
port=${BENCH_PORT:-3921}
server_bin=${HARNESS_BIN:-$root/build/src/mcp-harness}
users=${BENCH_USERS:-8}
calls=${BENCH_CALLS:-20}
unset NODE_EXTRA_CA_CERTS  # it triples node's start-up, which is what "first" measures
work=$(mktemp -d)
memory_js="$root/servers/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
cat >"$work/mcp.json" <<EOF
{"mcpServers": {
  "memory": {"scope": "user", "command": "node", "args": ["$memory_js"],
             "env": {"MEMORY_FILE_PATH": "$work/memory/\${user.id}.jsonl"}, "directories": ["$work/memory"]},
  "masked": {"scope": "user", "command": "node", "args": ["$memory_js"],
             "env": {"MEMORY_FILE_PATH": "$work/masked/\${user.id}.jsonl", "BENCH_TOKEN": "\${secret:BENCH_TOKEN}"},
             "directories": ["$work/masked"]},
  "shared": {"command": "node", "args": ["$memory_js"], "env": {"MEMORY_FILE_PATH": "$work/shared.jsonl"}}}}
EOF
(cd "$root" && ENV_FILE=/dev/null PORT=$port LOG_LEVEL=warn SANDBOX_POOL_SIZE=2 SANDBOX_OWNER=bench-$$ \
  API_KEYS_FILE=/nonexistent/keys.json STORE_PATH="$work/harness.db" MCP_CONFIG="$work/mcp.json" \
  MCP_MAX_USER_SERVERS=$((2 * users + 2)) exec "$server_bin" 2>"$work/log") &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 150); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "localhost:$port/health/ready")" = 200 ] && break
  sleep 0.2
done

BENCH_DIR="$root/bench" python3 - "$port" "$users" "$calls" <<'PY'
import json, os, statistics, sys, urllib.request
sys.path.insert(0, os.environ["BENCH_DIR"])
from bench_rows import emit
port, users, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def set_secret(user):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/secrets/BENCH_TOKEN?userId={user}", method="PUT",
                                 data=json.dumps({"value": f"bench-token-{user}-0123456789"}).encode(),
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=30).read()

def execute(user, code):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/execute", data=json.dumps({"userId": user, "code": code}).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        out = json.loads(r.read())
    if "error" in out:
        raise SystemExit(f"the block failed: {out['error']}")
    return out["result"]

# Date.now() is what the sandbox has (ms): a single first call (hundreds of
# ms) is timed alone, the warm calls as the mean of a run of `calls`.
block = f"""
const run = async (tool, n) => {{ const t = Date.now(); for (let i = 0; i < n; i++) await callMCPTool(tool, {{}}); return (Date.now() - t) / n; }};
const first = await run('memory__read_graph', 1);
const warm = await run('memory__read_graph', {calls});
const shared = await run('shared__read_graph', {calls});
// ~16 KB graphs in the user's plain and masked instances, then the same reads of each.
const big = {{entities: [{{name: 'notes', entityType: 'doc', observations: Array.from({{length: 200}}, (_, i) => 'observation number ' + i + ' ' + 'x'.repeat(60))}}]}};
await callMCPTool('memory__create_entities', big);
await callMCPTool('masked__create_entities', big);
const plain16k = await run('memory__read_graph', {calls});
const masked16k = await run('masked__read_graph', {calls});
return {{first, warm, shared, plain16k, masked16k}};
"""
execute("bench-warmup", "await callMCPTool('shared__read_graph', {}); return 1")
first, warm, shared, plain, masked = [], [], [], [], []
for i in range(users):
    set_secret(f"bench-user-{i}")
    r = execute(f"bench-user-{i}", block)
    first.append(r["first"]); warm.append(r["warm"]); shared.append(r["shared"])
    plain.append(r["plain16k"]); masked.append(r["masked16k"])
p50 = statistics.median
emit("user_servers_first", f"first call of a new user (their memory instance starts), p50 of {users} users",
     f"{p50(first):.0f} ms", f"{p50(shared):.2f} ms (shared server, warm)", f"{p50(first) / p50(shared):.0f}x",
     "-", None, first_ms=first)
emit("user_servers_warm", f"later calls to the user's own instance, p50 of {users} runs of {calls}",
     f"{p50(warm):.2f} ms", f"{p50(shared):.2f} ms (shared server)", f"{p50(warm) / p50(shared):.2f}x",
     "about 1x", abs(p50(warm) / p50(shared) - 1) < 0.25, warm_ms=warm, shared_ms=shared)
emit("user_servers_masked", f"calls to a user's instance holding a secret (~16 KB results searched), p50 of {users} runs of {calls}",
     f"{p50(masked):.2f} ms", f"{p50(plain):.2f} ms (the same without a secret)", f"{p50(masked) / p50(plain):.2f}x",
     "about 1x", abs(p50(masked) / p50(plain) - 1) < 0.25, masked_ms=masked, plain_ms=plain)
PY
