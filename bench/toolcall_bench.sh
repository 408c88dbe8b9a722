#!/usr/bin/env bash
# N sequential callMCPTool('everything__echo') calls from a block, beside a
# bare stdio client calling the same server's echo N times, and that client
# again through bench/hop_relay.c (a process that only copies bytes: the
# floor of any design with one more process on the path). Every side first
# makes W untimed calls (the same W), so all are measured warm (node's JIT in
# the sandbox, in the server and in the client; the server needs a few
# thousand calls), then R rounds of N calls, the sides' rounds interleaved
# in rotating order (bench/toolcall_rounds.py; this machine's speed drifts by
# a third within minutes). The row gives the median round of each side and
# the median of the rounds' own ratios.
#   bench/toolcall_bench.sh [N] [W] [R]   (defaults 2000, 5000 and 7)
# HARNESS_BIN=path (with SANDBOX_IMAGE=its image) runs another build, for a side-by-side comparison.
# TRANSPORT=http: the same over Streamable HTTP (server-everything listening on
# loopback, the harness's net client on one side, a bare fetch client on the
# other; all of our rounds in one block, then the client's).
# ALSO_RUNTIME=runsc (stdio only): a second server whose sandboxes run under
# that runtime takes a turn in every round too; its rounds go to $BENCH_JSON
# as a record beside the first server's (bench/runtime_bench.sh).
# ALSO_LANGUAGE=python (stdio only): the same server also runs the calls as a
# Python block (`await call_mcp_tool(...)` in a loop), in a session of its
# own, as a turn in every round; recorded as with ALSO_RUNTIME, which wins
# when both are set (BENCH_LANGUAGE=python bench/runtime_bench.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-2000}
warm=${2:-5000}
rounds=${3:-7}
port=${BENCH_PORT:-3918}
transport=${TRANSPORT:-stdio}
unset NODE_EXTRA_CA_CERTS

log=$(mktemp)
relay_dir=$(mktemp -d)
config="$root/bench/mcp_everything.json"
everything=
server2=
cleanup() {
  kill -TERM $server 2>/dev/null; wait $server 2>/dev/null
  if [ -n "$server2" ]; then kill -TERM "$server2" 2>/dev/null; wait "$server2" 2>/dev/null; fi
  [ -n "$everything" ] && kill -TERM "$everything" 2>/dev/null
  rm -f "$log" "$root/bench/.mcp_remote_everything.json"
  rm -rf "$relay_dir"
}
if [ "$transport" = http ]; then
  remote_port=$((port + 1))
  PORT=$remote_port node "$root/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js" \
    streamableHttp >/dev/null 2>&1 &
  everything=$!
  config="$root/bench/.mcp_remote_everything.json"
  echo "{\"mcpServers\": {\"everything\": {\"url\": \"http://127.0.0.1:$remote_port/mcp\"}}}" >"$config"
  for _ in $(seq 1 100); do curl -s -o /dev/null "127.0.0.1:$remote_port/mcp" && break; sleep 0.1; done
fi
ENV_FILE=/dev/null PORT=$port LOG_LEVEL=warn SANDBOX_POOL_SIZE=1 SANDBOX_OWNER=bench-$$ SANDBOX_TIMEOUT_MS=120000 \
  MCP_CONFIG="$config" "${HARNESS_BIN:-$root/build/src/mcp-harness}" 2>"$log" &
server=$!
trap cleanup EXIT
ports=$port
if [ -n "${ALSO_RUNTIME:-}" ] && [ "$transport" = stdio ]; then
  ENV_FILE=/dev/null PORT=$((port + 2)) LOG_LEVEL=warn SANDBOX_POOL_SIZE=1 SANDBOX_OWNER=bench-$$-also \
    SANDBOX_TIMEOUT_MS=120000 SANDBOX_RUNTIME=$ALSO_RUNTIME MCP_CONFIG="$config" \
    "${HARNESS_BIN:-$root/build/src/mcp-harness}" 2>>"$log" &
  server2=$!
  ports=$port,$((port + 2))
elif [ -n "${ALSO_LANGUAGE:-}" ] && [ "$transport" = stdio ]; then
  ports=$port,$port:$ALSO_LANGUAGE
fi
# shellcheck source=wait_pool.sh
. "$root/bench/wait_pool.sh"
wait_everything "$port"
[ -z "$server2" ] || wait_everything $((port + 2))

if [ "$transport" = http ]; then
  code="for (let i = 0; i < $warm; i++) await callMCPTool('everything__echo', {message: 'warm-up'});
const rounds = [];
for (let r = 0; r < $rounds; r++) {
  const t = process.hrtime();
  for (let i = 0; i < $n; i++) await callMCPTool('everything__echo', {message: 'm' + i});
  const [s, ns] = process.hrtime(t);
  rounds.push(s * 1000 + ns / 1e6);
}
return rounds;"
  ours=$(python3 -c 'import json,sys; print(json.dumps({"userId":"bench","code":sys.argv[1]}))' "$code" |
    curl -s -X POST "localhost:$port/execute" -H 'Content-Type: application/json' --data-binary @- |
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert "error" not in d, d; print(json.dumps(d["result"]))')
  direct=$(node "$root/bench/direct_http_client.js" "http://127.0.0.1:$remote_port/mcp" "$n" "$warm" "$rounds" |
    python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["rounds"]))')
  relayed='[]'
else
  cc -O2 -o "$relay_dir/hop_relay" "$root/bench/hop_relay.c"
  all=$(python3 "$root/bench/toolcall_rounds.py" "$ports" "$n" "$warm" "$rounds" "$relay_dir/hop_relay")
  side() { echo "$all" | python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin).get('$1', [])))"; }
  ours=$(side ours) direct=$(side bare) relayed=$(side relay) ours2=$(side ours2)
fi
BENCH_DIR="$root/bench" TRANSPORT=$transport python3 - "$n" "$ours" "$direct" "$relayed" "${ours2:-[]}" <<'PY'
import json, os, statistics, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from bench_rows import emit, record
n = int(sys.argv[1])
if json.loads(sys.argv[5]) and os.environ.get("ALSO_LANGUAGE") and not os.environ.get("ALSO_RUNTIME"):
    # the second side: the same server's block in another language
    record("toolcall_languages", runtime=os.environ.get("SANDBOX_RUNTIME", ""), language="javascript",
           also_language=os.environ["ALSO_LANGUAGE"], calls=n, ours=json.loads(sys.argv[2]),
           ours2=json.loads(sys.argv[5]), bare=json.loads(sys.argv[3]), relay=json.loads(sys.argv[4]))
elif json.loads(sys.argv[5]):  # ALSO_RUNTIME: every side's rounds, in order
    record("toolcall_runtimes", runtime=os.environ.get("SANDBOX_RUNTIME", ""), also_runtime=os.environ["ALSO_RUNTIME"],
           calls=n, ours=json.loads(sys.argv[2]), ours2=json.loads(sys.argv[5]), bare=json.loads(sys.argv[3]),
           relay=json.loads(sys.argv[4]))
ours, direct = statistics.median(json.loads(sys.argv[2])), statistics.median(json.loads(sys.argv[3]))
rate, per_call, direct_per_call = n / ours * 1000, ours / n * 1000, direct / n * 1000
if os.environ["TRANSPORT"] == "http":
    # No target of its own: the row shows what the remote path costs beside a bare client.
    emit("toolcall_http", f"{n} sequential `callMCPTool` echo calls from one block (server-everything, Streamable HTTP)",
         f"{rate:,.0f} calls/s, {per_call:.0f} us/call",
         f"bare Node.js fetch client to the same server: {n / direct * 1000:,.0f} calls/s, {direct_per_call:.0f} us/call",
         f"{ours / direct:.2f}x the direct per-call time", "-", None, calls_per_s=rate, us_per_call=per_call,
         direct_us_per_call=direct_per_call)
else:
    rounds = list(zip(json.loads(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])))
    relayed = statistics.median(r[2] for r in rounds)
    # Each round of the three sides ran back to back: the median of the rounds' own ratios.
    ours_ratio = statistics.median(b / o for o, b, _ in rounds)
    relay_ratio = statistics.median(b / r for _, b, r in rounds)
    emit("toolcall", f"{n} sequential `callMCPTool` echo calls from a block (server-everything, stdio), "
         f"{len(rounds)} rounds interleaved with the baselines'",
         f"{rate:,.0f} calls/s, {per_call:.0f} us/call (median round)",
         f"bare Node.js stdio client to the same server: {n / direct * 1000:,.0f} calls/s, {direct_per_call:.0f} us/call; "
         f"the same client through a relay that only copies bytes (the floor of any design with one more "
         f"process on the path): {relayed / n * 1000:.0f} us/call, {relay_ratio:.2f}x the bare rate",
         f"{ours_ratio:.2f}x the bare client's rate (median of the rounds' ratios); "
         f"{ours_ratio / relay_ratio:.2f}x the relay floor's",
         ">= 0.8x the bare client's rate", ours_ratio >= 0.8, calls_per_s=rate, us_per_call=per_call,
         direct_us_per_call=direct_per_call, relay_us_per_call=relayed / n * 1000, ratio=ours_ratio,
         relay_ratio=relay_ratio)
PY
