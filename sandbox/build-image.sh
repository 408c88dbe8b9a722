#!/usr/bin/env bash
# Builds the sandbox image (Dockerfile.sandbox + sandbox/image/) when its inputs
# changed; otherwise returns at once. Works offline: when the default base
# (node:20-bookworm-slim) is not on this machine, it builds a local base from
# the host's node (sandbox/build-base-image.sh) instead of pulling, unless
# SANDBOX_PULL_BASE=1 says pulling is fine.
#
# Environment: SANDBOX_IMAGE (default mcp-harness-sandbox:latest),
#   SANDBOX_BASE_IMAGE (force a base), SANDBOX_PULL_BASE=1 (try to pull the default base).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
image=${SANDBOX_IMAGE:-mcp-harness-sandbox:latest}
default_base=node:20-bookworm-slim

if [ -n "${SANDBOX_BASE_IMAGE:-}" ]; then
  base=$SANDBOX_BASE_IMAGE
elif docker image inspect "$default_base" >/dev/null 2>&1; then
  base=$default_base
elif [ "${SANDBOX_PULL_BASE:-0}" = 1 ] && docker pull -q "$default_base" >/dev/null 2>&1; then
  base=$default_base
else
  base=$("$here/build-base-image.sh")
fi
base_id=$(docker image inspect -f '{{.Id}}' "$base")
# Python for the Python runtime, copied over whichever base (build-python-files.sh).
python_files=$("$here/build-python-files.sh")
python_id=$(docker image inspect -f '{{.Id}}' "$python_files")

# The image's inputs: the Dockerfile, sandbox/image/, the runtimes' sources, the base and Python.
inputs=$(
  cd "$root"
  { echo "$base_id $python_id"; sha256sum Dockerfile.sandbox; find sandbox/image -type f | LC_ALL=C sort | xargs sha256sum
    sha256sum sandbox/runtime/*.js sandbox/runtime-python/*.py; } |
    sha256sum | cut -c1-32
)
current=$(docker image inspect -f '{{index .Config.Labels "org.mcp-harness.inputs"}}' "$image" 2>/dev/null || true)
if [ "$current" = "$inputs" ]; then
  exit 0
fi

echo "building sandbox image $image (base $base)" >&2
# The build context holds only the image's inputs, nothing else from the repository.
# The legacy builder needs no BuildKit component and no network; its output is
# shown only when the build fails.
build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
if ! (cd "$root" && tar -c Dockerfile.sandbox sandbox/image sandbox/runtime/*.js sandbox/runtime-python/*.py) |
  DOCKER_BUILDKIT=0 docker build -f Dockerfile.sandbox \
    --build-arg "BASE_IMAGE=$base" --build-arg "PYTHON_FILES=$python_files" \
    --label "org.mcp-harness.inputs=$inputs" \
    -t "$image" - >"$build_log" 2>&1; then
  cat "$build_log" >&2
  echo "error: building $image failed" >&2
  exit 1
fi
echo "built $image" >&2
