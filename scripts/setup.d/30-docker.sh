# Docker engine and the sandbox image (design.md sections 4 and 8).
# Sourced by scripts/run.sh and scripts/test.sh: idempotent, and fast when the
# engine already answers and the image is up to date.
# An engine installed another way (docker-ce) is used as it is: docker.io would conflict.
if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
  need_apt docker.io
fi
# libssl-dev: TLS to a tcp:// engine. socat: the tests put tcp and TLS endpoints
# in front of the engine's socket.
need_apt libssl-dev socat

# _docker_ping: true when the engine answers GET /_ping on the unix socket.
_docker_ping() {
  [ -S /var/run/docker.sock ] &&
    curl -fsS --max-time 2 --unix-socket /var/run/docker.sock http://localhost/_ping >/dev/null 2>&1
}

# A DOCKER_HOST that points elsewhere (tcp://, another socket) is the user's
# engine: we neither start nor manage it, only build the image there.
if [ -z "${DOCKER_HOST:-}" ] || [ "${DOCKER_HOST}" = "unix:///var/run/docker.sock" ]; then
  if ! _docker_ping; then
    [ "$(id -u)" -eq 0 ] || die "the Docker engine does not answer on /var/run/docker.sock; start it (or run as root so set-up can)"
    _dockerd_log=${DOCKERD_LOG:-/var/log/mcp-harness-dockerd.log}
    # A dockerd that is still starting gets waited for, not a second one.
    if ! pgrep -x dockerd >/dev/null 2>&1; then
      log "starting dockerd (log: $_dockerd_log)"
      # No bridge, no iptables: sandboxes run with NetworkMode none and this
      # machine must not get a docker0 network or NAT rules.
      setsid -f dockerd --bridge=none --iptables=false --ip-forward=false --ip-masq=false \
        >>"$_dockerd_log" 2>&1 </dev/null
    fi
    for _i in $(seq 1 120); do
      _docker_ping && break
      sleep 0.25
    done
    _docker_ping || die "dockerd did not answer /_ping within 30 s; see $_dockerd_log"
    unset _i _dockerd_log
  fi
fi

# Debian's Python with numpy and pandas: the sandbox image's Python runtime is
# built from these packages' files (sandbox/build-python-files.sh).
need_apt python3-numpy python3-pandas
# The sandbox image: rebuilt only when its inputs changed (sandbox/build-image.sh
# keeps a hash of Dockerfile.sandbox, sandbox/image/ and the base in a label).
"$HARNESS_ROOT/sandbox/build-image.sh"
