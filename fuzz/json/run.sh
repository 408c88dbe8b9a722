#!/usr/bin/env bash
# Builds the fuzz targets of the parsers of outside JSON with clang (libFuzzer
# + ASan + UBSan) and fuzzes each for a share of a bounded time. Usage:
# fuzz/json/run.sh [SECONDS] (default 60, split evenly over the targets).
# Exits non-zero when a fuzzer finds a crash or a broken invariant; the
# reproducer is left in $BUILD_DIR/fuzz-json/artifacts/<target>/.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
seconds=${1:-60}
need_apt clang libclang-rt-14-dev cmake ninja-build nlohmann-json3-dev libboost1.81-dev libfmt-dev

out=$BUILD_DIR/fuzz-json
if [ ! -f "$out/build.ninja" ]; then
  log "configuring $out with clang"
  CXX=clang++ cmake -S "$HARNESS_ROOT/fuzz/json" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$out"
targets=(strict_json_fuzz frame_fuzz mcp_message_fuzz sse_fuzz)
share=$(( seconds / ${#targets[@]} ))
[ "$share" -ge 1 ] || share=1
for target in "${targets[@]}"; do
  mkdir -p "$out/corpus/$target" "$out/artifacts/$target"
  log "fuzzing $target for ${share}s"
  # The seeds are read-only inputs; new finds go to the target's corpus. The
  # deep seeds nest past the depth limit, so the limit's path is covered from
  # the first run.
  "$out/$target" -max_total_time="$share" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/artifacts/$target/" -print_final_stats=1 "$out/corpus/$target" \
    "$HARNESS_ROOT/fuzz/json/seeds" 2>&1 | tail -n 12
  [ "${PIPESTATUS[0]}" -eq 0 ] || die "$target found a failure: see $out/artifacts/$target/"
done
