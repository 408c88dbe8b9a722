#!/usr/bin/env bash
# Builds the PII fuzz target with clang (libFuzzer + ASan + UBSan) and fuzzes
# it for a bounded time. Usage: fuzz/pii/run.sh [SECONDS] (default 60).
# Exits non-zero when the fuzzer finds a crash or a broken round trip; the
# reproducer is left in $BUILD_DIR/fuzz-pii/artifacts/.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
seconds=${1:-60}
need_apt clang libclang-rt-14-dev cmake ninja-build libre2-dev nlohmann-json3-dev libboost1.81-dev pkg-config

out=$BUILD_DIR/fuzz-pii
if [ ! -f "$out/build.ninja" ]; then
  log "configuring $out with clang"
  CXX=clang++ cmake -S "$HARNESS_ROOT/fuzz/pii" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$out"
mkdir -p "$out/corpus" "$out/artifacts"
log "fuzzing for ${seconds}s"
# The seeds are read-only inputs; new finds go to $out/corpus.
"$out/pii_fuzz" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$out/artifacts/" -print_final_stats=1 "$out/corpus" "$HARNESS_ROOT/fuzz/pii/seeds"
