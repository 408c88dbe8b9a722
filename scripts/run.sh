#!/usr/bin/env bash
# Installs what is missing, builds, prepares the Docker engine, the sandbox
# image and the MCP servers, then runs the server in the foreground on port 3000.
# Extra arguments go to the server (e.g. ./scripts/run.sh --port 8080).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
HARNESS_SETUP=server run_setup
build_harness
log "starting mcp-harness"
cd "$HARNESS_ROOT"
exec "$BUILD_DIR/src/mcp-harness" "$@"
