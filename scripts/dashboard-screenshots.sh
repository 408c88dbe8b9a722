#!/usr/bin/env bash
# Regenerates the screenshots in docs/dashboard/ (shown by docs/DASHBOARD.md):
# the dashboard's browser test, run with SCREENSHOT_DIR, saves each page it
# checks against the real server, sandbox, MCP servers and the fake LLM.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
run_setup
build_harness
out="$HARNESS_ROOT/docs/dashboard"
mkdir -p "$out"
log "taking screenshots into ${out#$HARNESS_ROOT/}"
SCREENSHOT_DIR="$out" "$BUILD_DIR/tests/ui/ui_integration_tests"
