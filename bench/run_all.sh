#!/usr/bin/env bash
# Runs every benchmark once, one after the other, and rewrites the summary
# table of docs/BENCHMARKS.md (design.md section 9: our figure, the baseline
# measured beside it in the same run, the ratio, the target, met or not, and
# the machine). A benchmark that fails leaves its row marked as failed; the
# others still run. Takes about a quarter of an hour (8 minutes more where runsc is
# registered: bench/runtime_bench.sh; about 4 more for Python beside JavaScript:
# BENCH_LANGUAGE=python bench/runtime_bench.sh); heavy on a small machine.
#   bench/run_all.sh            (BENCH_KEEP_JSON=path keeps the raw rows)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../scripts/lib.sh
. "$root/scripts/lib.sh"
set -e
run_setup                       # engine, sandbox image, npm servers, packages
need_apt wrk libbenchmark-dev   # only the benchmarks need these
if [ -f "$BUILD_DIR/build.ninja" ] && ! ninja -C "$BUILD_DIR" -t targets all 2>/dev/null | grep -q '^pii_bench:'; then
  cmake "$BUILD_DIR" >/dev/null  # Google Benchmark was installed after the first configure
fi
build_harness
set +e
unset NODE_EXTRA_CA_CERTS

rows=${BENCH_KEEP_JSON:-$(mktemp)}
: >"$rows"
export BENCH_JSON=$rows
failed=()
run() {  # run KEY... -- COMMAND...: runs a benchmark; on failure marks its rows failed
  local keys=()
  while [ "$1" != "--" ]; do keys+=("$1"); shift; done
  shift
  log "bench: $*"
  if ! "$@"; then
    for key in "${keys[@]}"; do failed+=("$key=$(basename "$1") exited with an error, see its output"); done
  fi
}
machine="Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB, kernel $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"), Docker $(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?'), Node $(node --version 2>/dev/null || echo '?'); run $(date -u '+%Y-%m-%d %H:%M UTC'), load average before the run $(cut -d' ' -f1-3 /proc/loadavg)."

run execute_warm -- "$root/bench/execute_bench.sh" 200
if [ -x "$root/bench/coldstart_bench.sh" ]; then
  run cold_start -- "$root/bench/coldstart_bench.sh" 20
fi
run toolcall -- "$root/bench/toolcall_bench.sh"
run toolcall_http -- env TRANSPORT=http "$root/bench/toolcall_bench.sh" 1000 1000 3  # 3 ms a call: the warm-up matters less
run pii_mixed pii_clean -- "$root/bench/pii_bench.sh"
run health -- "$root/bench/health_bench.sh"
if [ -x "$root/bench/context_bench.sh" ]; then
  run context -- "$root/bench/context_bench.sh"
fi
run load_paced_50 load_paced_80 load_fresh load_session -- "$root/bench/load_bench.sh" 16 30
run mcp_execute_code -- "$root/bench/mcp_execute_bench.sh" 200
run describe_bytes -- "$root/bench/describe_bytes.sh"
if docker info --format '{{json .Runtimes}}' | grep -q '"runsc"'; then  # gVisor beside runc, about 8 minutes
  run runtime_first_block runtime_session_block runtime_session_block_b2b runtime_toolcall runtime_fresh runtime_memory -- "$root/bench/runtime_bench.sh"
fi
# Python beside JavaScript, about 4 minutes
run language_first_block language_session_block language_session_block_b2b language_toolcall language_memory -- \
  env BENCH_LANGUAGE=python "$root/bench/runtime_bench.sh"

python3 "$root/bench/render_summary.py" "$rows" "$root/docs/BENCHMARKS.md" "$machine" "$(IFS=';'; echo "${failed[*]:-}")"
[ -n "${BENCH_KEEP_JSON:-}" ] || rm -f "$rows"
log "docs/BENCHMARKS.md summary rewritten"
[ ${#failed[@]} -eq 0 ]
