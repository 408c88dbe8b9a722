#!/usr/bin/env bash
# The PII censor (tokenize_into) beside a bare RE2::Set::Match scan of the same
# bytes, on PII-dense mixed text and on text without PII (bench/pii/pii_bench.cpp,
# Google Benchmark, one thread). Prints the summary rows; details in docs/benchmarks/pii.md.
#   bench/pii_bench.sh   (PII_BENCH_REPETITIONS=3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=$root/build/bench/pii/pii_bench
[ -x "$binary" ] || { echo "$binary is missing: install libbenchmark-dev and rebuild (bench/run_all.sh does)" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$binary" --benchmark_repetitions="${PII_BENCH_REPETITIONS:-3}" --benchmark_report_aggregates_only=true \
  --benchmark_filter='^BM_(bare_set_match|tokenize_into)_' --benchmark_format=json >"$out"
BENCH_DIR="$root/bench" python3 - "$out" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from bench_rows import emit
runs = json.load(open(sys.argv[1]))["benchmarks"]
def mb_s(name):  # median over the repetitions, in MB/s (10^6 bytes)
    for r in runs:
        # run_name carries options after a slash ("BM_x/min_time:2.000").
        if r["run_name"].split("/")[0] == name and r.get("aggregate_name") == "median":
            return r["bytes_per_second"] / 1e6
    raise SystemExit(f"no median for {name} in the pii_bench output")
for kind, what, target_rate in (("mixed", "PII censor on PII-dense mixed text (32 MiB)", 200),
                                ("clean", "PII censor on text without PII", None)):
    ours, bare = mb_s(f"BM_tokenize_into_{kind}"), mb_s(f"BM_bare_set_match_{kind}")
    ratio = ours / bare
    target = ">= 200 MB/s per core and >= 60% of the bare scan" if target_rate else ">= 60% of the bare scan"
    met = ratio >= 0.6 and (target_rate is None or ours >= target_rate)
    emit(f"pii_{kind}", what, f"{ours:,.0f} MB/s (`tokenize_into`, 1 core)",
         f"bare `RE2::Set::Match` scan of the same bytes: {bare:,.0f} MB/s", f"{ratio:.0%} of the bare scan",
         target, met, mb_s=ours, bare_mb_s=bare)
PY
