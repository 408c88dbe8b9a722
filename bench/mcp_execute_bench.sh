#!/usr/bin/env bash
# execute_code of `return 1+1` over /mcp (one MCP session, JSON answers) against
# POST /execute of the same code on the same server, interleaved request by
# request: /execute with a sessionId (the same kept sandbox, like for like) and
# without one (a fresh pooled sandbox per request). Prints Markdown rows (and
# JSON lines to $BENCH_JSON when set; see bench/bench_rows.py).
#   bench/mcp_execute_bench.sh [RUNS]   (default 200 of each)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-200}
port=${BENCH_PORT:-3918}
server_bin=${HARNESS_BIN:-$root/build/src/mcp-harness}
unset NODE_EXTRA_CA_CERTS   # slows node start-up; the sandbox never has it either

log=$(mktemp)
ENV_FILE=/dev/null PORT=$port LOG_LEVEL=warn SANDBOX_POOL_SIZE=2 SANDBOX_OWNER=bench-$$ API_KEYS_FILE=/nonexistent/keys.json \
  MCP_CONFIG="$root/tests/http/no_mcp_servers.json" "$server_bin" 2>"$log" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT
# shellcheck source=wait_pool.sh
. "$root/bench/wait_pool.sh"
wait_pool "$port" 2

BENCH_DIR="$root/bench" python3 - "$port" "$runs" <<'PY'
import json, os, sys, time, urllib.request
sys.path.insert(0, os.environ["BENCH_DIR"])
from bench_rows import emit
port, runs = sys.argv[1], int(sys.argv[2])
base = f"http://127.0.0.1:{port}"

def post(path, body, headers=None):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **(headers or {})})
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=120) as r:
        out = r.read(), dict(r.headers)
    return (time.perf_counter() - t) * 1000, out

def pct(xs, p):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

_, (_, headers) = post("/mcp", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}})
session = {"Mcp-Session-Id": headers["Mcp-Session-Id"], "MCP-Protocol-Version": "2025-11-25"}
post("/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
call = lambda i: {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "execute_code", "arguments": {"code": "return 1+1"}}}
# Untimed first calls: each side's sandbox session is opened once.
post("/mcp", call(1), session)
post("/execute", {"userId": "bench", "code": "return 1+1", "sessionId": "bench-kept"})
mcp, kept, fresh = [], [], []
for i in range(runs):
    ms, (body, _) = post("/mcp", call(i + 2), session)
    assert json.loads(body)["result"]["structuredContent"]["result"] == 2, body
    mcp.append(ms)
    ms, (body, _) = post("/execute", {"userId": "bench", "code": "return 1+1", "sessionId": "bench-kept"})
    assert json.loads(body)["result"] == 2, body
    kept.append(ms)
    ms, (body, _) = post("/execute", {"userId": "bench", "code": "return 1+1"})
    assert json.loads(body)["result"] == 2, body
    fresh.append(ms)
    time.sleep(0.25)  # the pool refills between fresh sandboxes, as in execute_bench.sh
m, k, f = pct(mcp, 50), pct(kept, 50), pct(fresh, 50)
emit("mcp_execute_code", "`execute_code` of `return 1+1` over `/mcp` (one session)",
     f"p50 {m:.2f} ms, p99 {pct(mcp, 99):.2f} ms ({runs} calls)",
     f"`POST /execute` with a sessionId, interleaved: p50 {k:.2f} ms; without one (fresh pooled sandbox): p50 {f:.2f} ms",
     f"{m / k:.2f}x the kept-session /execute, {m / f:.2f}x the fresh one", "<= 1.5x POST /execute", m <= 1.5 * k,
     mcp_p50_ms=m, execute_session_p50_ms=k, execute_fresh_p50_ms=f)
PY
