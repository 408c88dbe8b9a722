#!/usr/bin/env bash
# Fails (and lists the files) when a C++ file git tracks is not formatted as
# .clang-format says. Fix with: clang-format -i <file> (or the whole list).
# Run by ctest as Format.TreeIsClangFormatClean, so CI checks it.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' | grep -v '/node_modules/')
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "not clang-format clean (${#bad[@]} files); run: clang-format -i ${bad[*]}"
  exit 1
fi
echo "clang-format clean: ${#files[@]} files"
