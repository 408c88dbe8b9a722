#!/usr/bin/env bash
# Installs what is missing, builds, prepares the Docker engine, the sandbox
# image and the MCP servers, then runs every test (unit and integration) with
# ctest. Extra arguments go to ctest (e.g. ./scripts/test.sh -L unit).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
run_setup
build_harness
log "running tests"
cd "$BUILD_DIR"
ctest --output-on-failure -j "${TEST_JOBS:-2}" "$@"
