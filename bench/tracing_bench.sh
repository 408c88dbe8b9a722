#!/usr/bin/env bash
# What tracing costs: two servers side by side, the same build and settings,
# one with tracing off (no endpoint) and one tracing every request (sampled
# 100 %, OTLP/HTTP protobuf to bench/otlp_sink.cjs, which answers at once).
# Three measures, each in R rounds whose order alternates between the sides
# (this machine's speed drifts within minutes); a row is the median of the
# rounds' own ratios (on / off):
#   - GET /health under wrk (C connections, D per run);
#   - N sequential warm POST /execute {"code": "return 1"} in a live session (its sandbox stays),
#     on one keep-alive connection;
#   - T sequential callMCPTool('everything__echo') calls from one block (stdio server-everything),
#     W untimed calls first.
#   bench/tracing_bench.sh [N] [T] [R]   (defaults 300, 2000 and 6)
# WRK_DURATION=5s WRK_CONNECTIONS=50 WARM=3000. HARNESS_BIN=path runs another build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-300}
calls=${2:-2000}
rounds=${3:-6}
warm=${WARM:-3000}
port_off=${BENCH_PORT:-3930}
port_on=$((port_off + 1))
duration=${WRK_DURATION:-5s}
connections=${WRK_CONNECTIONS:-50}
unset NODE_EXTRA_CA_CERTS
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }

log=$(mktemp)
sink_out=$(mktemp)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -f "$log" "$sink_out"
}
trap cleanup EXIT
node "$root/bench/otlp_sink.cjs" >"$sink_out" &
pids+=($!)
for _ in $(seq 1 50); do [ -s "$sink_out" ] && break; sleep 0.1; done
sink_port=$(head -1 "$sink_out")
[[ "$sink_port" =~ ^[0-9]+$ ]] || { echo "the OTLP sink did not start: $(cat "$sink_out")" >&2; exit 1; }

start_server() {  # port, extra env...
  local port=$1; shift
  env ENV_FILE=/dev/null PORT="$port" LOG_LEVEL=warn SANDBOX_POOL_SIZE=1 SANDBOX_OWNER="bench-$$-$port" \
    SANDBOX_TIMEOUT_MS=120000 MCP_CONFIG="$root/bench/mcp_everything.json" "$@" \
    "${HARNESS_BIN:-$root/build/src/mcp-harness}" 2>>"$log" &
  pids+=($!)
}
start_server "$port_off"
start_server "$port_on" OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$sink_port" OTEL_TRACES_SAMPLER=always_on \
  OTEL_BSP_SCHEDULE_DELAY=1000
# shellcheck source=wait_pool.sh
. "$root/bench/wait_pool.sh"
wait_everything "$port_off"
wait_everything "$port_on"
for port in "$port_off" "$port_on"; do
  curl -sf "localhost:$port/health" >/dev/null || { echo "the server on $port did not come up: $(cat "$log")" >&2; exit 1; }
done

results=$(BENCH_DIR="$root/bench" python3 - "$port_off" "$port_on" "$n" "$calls" "$rounds" "$warm" "$duration" \
  "$connections" <<'PY'
import http.client, json, re, subprocess, sys, time
off, on, n, calls, rounds, warm, duration, connections = sys.argv[1:9]
n, calls, rounds, warm = int(n), int(calls), int(rounds), int(warm)
ports = {"off": int(off), "on": int(on)}

def post(conn, body):
    conn.request("POST", "/execute", json.dumps(body), {"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    if r.status != 200:
        raise SystemExit(f"/execute answered {r.status}: {data[:300]!r}")
    return json.loads(data)

def execute_round(port):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    start = time.perf_counter()
    for _ in range(n):
        post(conn, {"userId": "bench", "sessionId": "warm", "code": "return 1"})
    return (time.perf_counter() - start) * 1000 / n  # ms per request

loop = ("const t = process.hrtime();\n"
        f"for (let i = 0; i < {calls}; i++) await callMCPTool('everything__echo', {{message: 'm' + i}});\n"
        "const [s, ns] = process.hrtime(t);\nreturn s * 1e6 + ns / 1e3;")

def toolcall_round(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    out = post(conn, {"userId": "bench", "sessionId": "calls", "code": loop})
    if "error" in out and out["error"]:
        raise SystemExit(f"the block failed: {out['error']}")
    return out["result"] / calls  # us per call

def health_round(port):
    text = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{duration}", f"http://127.0.0.1:{port}/health"],
                          capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in text:
        raise SystemExit(text)
    return float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))

# Warm both: the JIT of the sandbox, the server and the MCP server.
for side in ports.values():
    conn = http.client.HTTPConnection("127.0.0.1", side, timeout=600)
    post(conn, {"userId": "bench", "sessionId": "calls",
                "code": f"for (let i = 0; i < {warm}; i++) await callMCPTool('everything__echo', {{message: 'w'}}); return 0"})
    for _ in range(100):
        post(conn, {"userId": "bench", "sessionId": "warm", "code": "return 1"})
result = {"health": [], "execute": [], "toolcall": []}
for r in range(rounds):
    order = ["off", "on"] if r % 2 == 0 else ["on", "off"]
    for measure, fn in (("health", health_round), ("execute", execute_round), ("toolcall", toolcall_round)):
        got = {}
        for side in order:
            got[side] = fn(ports[side])
        result[measure].append(got)
print(json.dumps(result))
PY
)
exported=$(curl -s "127.0.0.1:$sink_port/count")
BENCH_DIR="$root/bench" python3 - "$results" "$exported" "$n" "$calls" <<'PY'
import json, os, statistics, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from bench_rows import emit
r, sink = json.loads(sys.argv[1]), json.loads(sys.argv[2])
n, calls = int(sys.argv[3]), int(sys.argv[4])
med = lambda xs: statistics.median(xs)
h_on, h_off = med(x["on"] for x in r["health"]), med(x["off"] for x in r["health"])
h_ratio = med(x["on"] / x["off"] for x in r["health"])
emit("tracing_health", "GET /health under wrk, tracing on (100 % sampled) beside off",
     f"{h_on:,.0f} req/s", f"tracing off: {h_off:,.0f} req/s", f"{h_ratio:.2f}x the rate with tracing off",
     "-", None, on=h_on, off=h_off, ratio=h_ratio)
e_on, e_off = med(x["on"] for x in r["execute"]), med(x["off"] for x in r["execute"])
e_ratio = med(x["on"] / x["off"] for x in r["execute"])
emit("tracing_execute", f"{n} sequential `POST /execute` (`return 1`) in a live session, tracing on beside off",
     f"{e_on:.2f} ms/request", f"tracing off: {e_off:.2f} ms/request", f"{e_ratio:.2f}x the time with tracing off",
     "-", None, on_ms=e_on, off_ms=e_off, ratio=e_ratio)
t_on, t_off = med(x["on"] for x in r["toolcall"]), med(x["off"] for x in r["toolcall"])
t_ratio = med(x["on"] / x["off"] for x in r["toolcall"])
emit("tracing_toolcall", f"{calls} sequential `callMCPTool` echo calls from one block, tracing on beside off",
     f"{t_on:.0f} us/call", f"tracing off: {t_off:.0f} us/call", f"{t_ratio:.2f}x the time per call with tracing off",
     "<= 1.10x", t_ratio <= 1.10, on_us=t_on, off_us=t_off, ratio=t_ratio,
     exports=sink["exports"], export_bytes=sink["bytes"])
PY
