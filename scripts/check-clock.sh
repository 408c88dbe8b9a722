#!/usr/bin/env bash
# Fails (and lists the places) when product code reads time or waits on it
# without core::clock: outside src/core and include/harness/core, no
# std::chrono clock is read or aliased and no Asio timer is made. Time comes
# from the core::clock a component is given (harness/core/clock.hpp), so a
# test can drive it with the fake clock instead of sleeping.
# Run by ctest as Format.TimeComesFromTheClock, so CI checks it.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='::now\(\)|(steady_clock|system_clock|high_resolution_clock|file_clock)[[:space:]]*;|\b(steady_timer|system_timer|high_resolution_timer|basic_waitable_timer)\b'
found=$(git grep -nE "$pattern" -- 'src/*.cpp' 'src/*.hpp' 'include/*.hpp' ':!src/core' ':!include/harness/core' |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
if [ -n "$found" ]; then
  echo "time read or waited on without core::clock; take a core::clock& and use steady_now(), system_now(),"
  echo "make_timer(), with_deadline(clock, ...), periodic_job or pausable_deadline (harness/core/):"
  echo "$found"
  exit 1
fi
echo "every read of time and every timer outside core/ goes through core::clock"
