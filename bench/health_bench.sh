#!/usr/bin/env bash
# GET /health of the real server under wrk (50 connections, 2 threads, 10 s),
# beside the same wrk run against bench/http/beast_hello.cpp: the smallest
# Beast server shaped like ours (one I/O thread, coroutine per connection,
# keep-alive) answering a fixed JSON body. Same machine, same run, one after
# the other so they do not share the 2 cores.
# Rounds alternate the order (ours first, then the baseline first) because the
# second wrk of a pair runs on a warmer or busier machine; the row is the median
# of the rounds' ratios, each round listed in order with which ran first.
#   bench/health_bench.sh   (WRK_DURATION=10s WRK_CONNECTIONS=50 WRK_THREADS=2 ROUNDS=4)
# HARNESS_BIN=path runs another build, for a side-by-side comparison of two builds.
# Needs a built server and wrk (bench/run_all.sh installs it from Debian).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
port=${BENCH_PORT:-3919}
hello_port=$((port + 1))
duration=${WRK_DURATION:-10s}
connections=${WRK_CONNECTIONS:-50}
threads=${WRK_THREADS:-2}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }

# The baseline is built here, with the project's Boost defines and -O2 like the
# RelWithDebInfo server, and rebuilt only when its source changes.
hello=$root/build/bench/http/beast_hello
if [ ! -x "$hello" ] || [ "$root/bench/http/beast_hello.cpp" -nt "$hello" ]; then
  mkdir -p "$(dirname "$hello")"
  g++ -std=c++20 -O2 -DNDEBUG -DBOOST_ASIO_NO_DEPRECATED \
    -DBOOST_ASIO_DISABLE_BOOST_COROUTINE -o "$hello" "$root/bench/http/beast_hello.cpp" -pthread
fi

log=$(mktemp)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -f "$log"
}
trap cleanup EXIT
# The server as deployed, minus the parts /health does not touch: no MCP
# servers and no warm pool (their containers would compete for the CPU).
ENV_FILE=/dev/null PORT=$port LOG_LEVEL=${BENCH_LOG_LEVEL:-info} SANDBOX_POOL_SIZE=0 SANDBOX_OWNER=bench-$$ \
  MCP_CONFIG="$root/tests/http/no_mcp_servers.json" "${HARNESS_BIN:-$root/build/src/mcp-harness}" >"$log" 2>&1 &
pids+=($!)
"$hello" "$hello_port" >/dev/null &
pids+=($!)
for _ in $(seq 1 100); do
  curl -sf "localhost:$port/health" >/dev/null && curl -sf "localhost:$hello_port/" >/dev/null && break
  sleep 0.2
done
curl -sf "localhost:$port/health" >/dev/null || { echo "server did not come up: $(cat "$log")" >&2; exit 1; }

run_wrk() { wrk -t"$threads" -c"$connections" -d"$duration" --latency "$1"; }
rounds=${ROUNDS:-4}
results=()
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then
    ours=$(run_wrk "http://127.0.0.1:$port/health")
    base=$(run_wrk "http://127.0.0.1:$hello_port/health")
  else
    base=$(run_wrk "http://127.0.0.1:$hello_port/health")
    ours=$(run_wrk "http://127.0.0.1:$port/health")
  fi
  results+=("$ours" "$base")
done
BENCH_DIR="$root/bench" python3 - "$connections" "$threads" "$duration" "${results[@]}" <<'PY'
import os, re, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from bench_rows import emit

def parse(text):
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    def ms(label):
        m = re.search(label + r"\s+([\d.]+)(us|ms|s)\b", text)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if errors:
        raise SystemExit(f"wrk saw {errors.group(1)} error responses:\n{text}")
    return rate, ms("50%"), ms("99%")

from statistics import median
connections, threads, duration = sys.argv[1:4]
texts = sys.argv[4:]
pairs = [(parse(texts[i]), parse(texts[i + 1])) for i in range(0, len(texts), 2)]
# Each round pairs two runs made seconds apart, so the row's ratio is the
# median of the rounds' own ratios; the ratio of the median rates is given too.
ratios = [ours[0] / base[0] for ours, base in pairs]
ratio = median(ratios)
rate, p50, p99 = (median(ours[k] for ours, _ in pairs) for k in range(3))
base_rate, base_p99 = median(b[0] for _, b in pairs), median(b[2] for _, b in pairs)
rounds = ", ".join(f"{r:.2f} ({'ours' if i % 2 == 0 else 'baseline'} first)" for i, r in enumerate(ratios))
emit("health", f"`GET /health`, wrk {threads} threads, {connections} connections, {duration}, "
     f"{len(pairs)} rounds in alternating order",
     f"{rate:,.0f} req/s, p50 {p50:.2f} ms, p99 {p99:.2f} ms (medians of the rounds)",
     f"minimal Beast server (bench/http/beast_hello.cpp): {base_rate:,.0f} req/s, p99 {base_p99:.2f} ms",
     f"{ratio:.2f} of the baseline's rate (median of the rounds' ratios: {rounds}; "
     f"ratio of the median rates {rate / base_rate:.2f})",
     ">= 0.9 of the baseline's rate, p99 < 5 ms", ratio >= 0.9 and p99 < 5,
     rate=rate, p50_ms=p50, p99_ms=p99, baseline_rate=base_rate, baseline_p99_ms=base_p99,
     ratio=ratio, round_ratios=ratios)
PY
