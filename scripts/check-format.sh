#!/usr/bin/env bash
# Fails (and lists the files) when a C++ file git tracks is not formatted as
# .clang-format says. Fix with: clang-format -i <file> (or the whole list).
# Run by ctest as Format.TreeIsClangFormatClean, so CI checks it.
# One clang-format per 64 files, two at a time: one process per file took a
# minute of process start-ups alone.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' | grep -v '/node_modules/' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
# --dry-run --Werror names each file that needs a change as "<file>:<line>:<col>: error: ...".
status=0
report=$(printf '%s\0' "${files[@]}" | xargs -0 -n 64 -P 2 clang-format --dry-run --Werror 2>&1 >/dev/null) || status=$?
mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$report" | cut -d: -f1 | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  echo "not clang-format clean (${#bad[@]} files); run: clang-format -i ${bad[*]}"
  exit 1
fi
if [ -n "$report" ] || [ "$status" -ne 0 ]; then
  echo "clang-format failed (exit $status): $report"
  exit 1
fi
echo "clang-format clean: ${#files[@]} files"
