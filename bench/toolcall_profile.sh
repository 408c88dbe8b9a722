#!/usr/bin/env bash
# CPU time per tool call, hop by hop: the harness, the MCP server behind it
# and the sandbox's container, over one block of N sequential
# callMCPTool('everything__echo') calls made after W warm-up calls in the same
# session; then the same for the bare stdio client and its own server. CPU
# time holds better than wall-clock rates on a loaded machine.
#   bench/toolcall_profile.sh [N] [W]   (defaults 4000 and 1000)
# HARNESS_BIN=path (with SANDBOX_IMAGE=its image) measures another build.
# PERF_RECORD=file: also `perf record -g` the harness over the timed block;
# STRACE=file instead counts its system calls (strace -c).
# Prints one JSON line per side.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-4000}
warm=${2:-1000}
port=${BENCH_PORT:-3928}
owner=bench-$$
unset NODE_EXTRA_CA_CERTS

log=$(mktemp)
ENV_FILE=/dev/null PORT=$port LOG_LEVEL=warn SANDBOX_POOL_SIZE=1 SANDBOX_OWNER=$owner SANDBOX_TIMEOUT_MS=300000 \
  MCP_CONFIG="$root/bench/mcp_everything.json" "${HARNESS_BIN:-$root/build/src/mcp-harness}" 2>"$log" &
server=$!
cleanup() {
  kill -TERM $server 2>/dev/null
  wait $server 2>/dev/null
  rm -f "$log"
}
trap cleanup EXIT
# shellcheck source=wait_pool.sh
. "$root/bench/wait_pool.sh"
wait_everything "$port"

execute() {  # code -> the block's result (JSON)
  python3 -c 'import json,sys; print(json.dumps({"userId":"bench","sessionId":"prof","code":sys.argv[1]}))' "$1" |
    curl -s -X POST "localhost:$port/execute" -H 'Content-Type: application/json' --data-binary @- |
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert "error" not in d, d; print(json.dumps(d["result"]))'
}
# Nanoseconds of CPU of every container of this run (the idle pooled one adds ~0).
containers_ns() {
  local total=0 id
  for id in $(docker ps -q --no-trunc --filter "label=org.mcp-harness.sandbox=$owner"); do
    total=$((total + $(cat "/sys/fs/cgroup/cpuacct/docker/$id/cpuacct.usage")))
  done
  echo $total
}
# Milliseconds of task-clock that `perf stat` wrote to file $1.
task_ms() { awk -F, '/task-clock/ {print $1; exit}' "$1"; }

execute "for (let i = 0; i < $warm; i++) await callMCPTool('everything__echo', {message: 'warm-up'}); return 0" >/dev/null
mcp=$(ps --ppid $server -o pid=,args= | awk '/server-everything/ {print $1; exit}')
# dockerd and the containers' shims: on a frame's way only before `link` moves the
# frames onto the call socket; near zero per call shows that they are off the path.
shims=$(for id in $(docker ps -q --filter "label=org.mcp-harness.sandbox=$owner"); do
  ps -o ppid= -p "$(docker inspect -f '{{.State.Pid}}' "$id")"; done | tr -d ' ' | paste -sd,)
host_stat=$(mktemp) mcp_stat=$(mktemp) relay_stat=$(mktemp)
perf stat -x, -e task-clock -p "$(pidof dockerd),$shims" -o "$relay_stat" &
p0=$!
perf stat -x, -e task-clock -p $server -o "$host_stat" &
p1=$!
perf stat -x, -e task-clock -p "$mcp" -o "$mcp_stat" &
p2=$!
if [ -n "${PERF_RECORD:-}" ]; then
  perf record ${PERF_OPTS:--g} -p $server -o "$PERF_RECORD" 2>/dev/null &
  p3=$!
elif [ -n "${STRACE:-}" ]; then
  strace -c -f -p $server -o "$STRACE" 2>/dev/null &
  p3=$!
fi
sleep 0.3
before=$(containers_ns)
ms=$(execute "const t = process.hrtime(); for (let i = 0; i < $n; i++) await callMCPTool('everything__echo', {message: 'm' + i});
const [s, ns] = process.hrtime(t); return s * 1000 + ns / 1e6;")
after=$(containers_ns)
kill -INT $p0 $p1 $p2 ${p3:-}
wait $p0 $p1 $p2 ${p3:-} 2>/dev/null || true
python3 - "$n" "$ms" "$(task_ms "$host_stat")" "$(task_ms "$mcp_stat")" "$((after - before))" "$(task_ms "$relay_stat")" \
  "$(uptime | sed 's/.*average: //')" <<'PY'
import json, sys
n, ms, host, mcp, sandbox_ns, relay, load = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), sys.argv[7]
print(json.dumps({"side": "harness", "calls_per_s": round(n / ms * 1000), "host_us": round(host * 1000 / n, 1),
                  "mcp_us": round(mcp * 1000 / n, 1), "sandbox_us": round(sandbox_ns / 1000 / n, 1),
                  "dockerd_and_shims_us": round(relay * 1000 / n, 1), "load": load}))
PY
rm -f "$host_stat" "$mcp_stat" "$relay_stat"

# The bare client, its own server under perf stat as well.
direct_stat=$(mktemp) direct_mcp_stat=$(mktemp)
node "$root/bench/direct_stdio_client.js" "$n" "$warm" 1 >"$direct_stat.out" &
client=$!
for _ in $(seq 1 100); do
  dmcp=$(ps --ppid $client -o pid= | head -1 | tr -d ' ' || true)
  [ -n "$dmcp" ] && break
  sleep 0.05
done
perf stat -x, -e task-clock -p $client -o "$direct_stat" &
p1=$!
perf stat -x, -e task-clock -p "$dmcp" -o "$direct_mcp_stat" &
p2=$!
wait $client
kill -INT $p1 $p2 2>/dev/null || true
wait $p1 $p2 2>/dev/null || true
# Both counts include the client's warm-up (it runs in one process): per call over warm + n.
python3 - "$n" "$warm" "$(cat "$direct_stat.out")" "$(task_ms "$direct_stat")" "$(task_ms "$direct_mcp_stat")" <<'PY'
import json, sys
n, warm, out, client, mcp = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
print(json.dumps({"side": "direct", "calls_per_s": round(n / out["rounds"][0] * 1000),
                  "client_us": round(client * 1000 / (n + warm), 1), "mcp_us": round(mcp * 1000 / (n + warm), 1)}))
PY
rm -f "$direct_stat" "$direct_stat.out" "$direct_mcp_stat"
