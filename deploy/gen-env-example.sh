#!/usr/bin/env bash
# Writes .env.example from `mcp-harness --help`, so the example lists every
# setting with its help line and default, in --help order. The test
# tests/deploy/env_example_test.cpp fails when .env.example is out of date.
#   deploy/gen-env-example.sh [BINARY] > .env.example   (default build/src/mcp-harness)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/build/src/mcp-harness}

cat <<'HEADER'
# mcp-harness settings: copy to .env (or set them in the environment, or pass
# them as flags: PORT -> --port) and uncomment what you change. Flags win over
# the environment, which wins over .env, which wins over the default.
# Generated from `mcp-harness --help` by deploy/gen-env-example.sh.
HEADER
# --help lists "  NAME, --flag   help text" and then "   default: value".
"$binary" --help | awk '
  /^  [A-Z][A-Z0-9_]*, --/ {
    name = $1; sub(/,$/, "", name)
    help = $0; sub(/^  [A-Z0-9_]+, --[a-z0-9-]+ +/, "", help)
    next
  }
  name != "" && /^ +default: / {
    value = $0; sub(/^ +default: /, "", value)
    secret = value == "(secret, no default)"
    if (value == "(empty)" || secret) value = ""
    printf "\n# %s%s\n# %s=%s\n", help, secret ? " (secret: keep this file private)" : "", name, value
    name = ""
  }'
