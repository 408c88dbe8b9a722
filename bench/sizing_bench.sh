#!/usr/bin/env bash
# What one sandbox costs at rest, for sizing a replica (docs/DEPLOYMENT.md):
# starts a server with a pool of N warm sandboxes, then reads each
# container's memory (docker stats) and the server's own RSS.
#   bench/sizing_bench.sh [N]   (default 8)
# HARNESS_BIN=path runs another build. Kept-session blocks per second and fresh
# sandboxes per second under load come from bench/load_bench.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-8}
port=${BENCH_PORT:-3921}
unset NODE_EXTRA_CA_CERTS
log=$(mktemp)
ENV_FILE=/dev/null PORT=$port LOG_LEVEL=warn SANDBOX_POOL_SIZE=$n SANDBOX_POOL_MAX=$n SANDBOX_OWNER=bench-$$ \
  MCP_CONFIG="$root/tests/http/no_mcp_servers.json" "${HARNESS_BIN:-$root/build/src/mcp-harness}" 2>"$log" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT
# shellcheck source=wait_pool.sh
. "$root/bench/wait_pool.sh"
wait_pool "$port" "$n"
sleep 2  # let the runtimes settle after their warm-up blocks
ids=$(docker ps -q --filter "label=org.mcp-harness.sandbox=bench-$$")
stats=$(docker stats --no-stream --format '{{.MemUsage}}' $ids | cut -d/ -f1)
rss_kb=$(awk '/^VmRSS/{print $2}' "/proc/$server/status")
limit_mb=$(curl -s "localhost:$port/health" >/dev/null; grep -m1 '^# SANDBOX_MEMORY_MB=' "$root/.env.example" | cut -d= -f2)
python3 - "$n" "$rss_kb" "$limit_mb" "$(nproc)" "$(free -m | awk '/^Mem:/{print $2}')" $stats <<'PY'
import statistics, sys
n, rss_kb, limit_mb, cores, mem_mb = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def mib(text):
    for unit, f in (("GiB", 1024), ("MiB", 1), ("KiB", 1 / 1024), ("B", 1 / 1024 / 1024)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * f
    raise ValueError(text)
used = [mib(s) for s in sys.argv[6:]]
med = statistics.median(used)
print(f"{len(used)} warm sandboxes (pool of {n}): memory per sandbox median {med:.1f} MiB, max {max(used):.1f} MiB; "
      f"server RSS {rss_kb / 1024:.1f} MiB; the limit per sandbox (SANDBOX_MEMORY_MB) {limit_mb} MiB")
print(f"per GiB of the engine host: {1024 / med:.0f} idle sandboxes, {1024 // limit_mb} at their memory limit; "
      f"this host: {cores} cores, {mem_mb} MiB")
PY
