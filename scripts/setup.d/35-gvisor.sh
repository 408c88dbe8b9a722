# gVisor (runsc) as the sandboxes' runtime (docs/SECURITY.md, "gVisor").
# The test command runs the sandbox suites a second time under it, so the
# tests' set-up always installs it; ./scripts/run.sh (HARNESS_SETUP=server)
# only when SANDBOX_RUNTIME=runsc, in the environment or in .env.
_gvisor_wanted() {
  [ "${HARNESS_SETUP:-all}" != server ] && return 0
  local runtime=${SANDBOX_RUNTIME:-}
  if [ -z "$runtime" ] && [ -f "$HARNESS_ROOT/.env" ]; then
    runtime=$(sed -n 's/^[[:space:]]*SANDBOX_RUNTIME=["'\'']\{0,1\}\([^"'\'']*\).*/\1/p' "$HARNESS_ROOT/.env" | tail -n 1)
  fi
  [ "$runtime" = runsc ]
}

# _gvisor_registered: true when the engine lists a runtime named runsc.
_gvisor_registered() {
  curl -fsS --max-time 2 --unix-socket /var/run/docker.sock http://localhost/info 2>/dev/null |
    jq -e '.Runtimes.runsc' >/dev/null 2>&1
}

# An engine of the user's own (DOCKER_HOST elsewhere) is theirs to configure:
# the server's start-up check names the fix when runsc is missing there.
if _gvisor_wanted && { [ -z "${DOCKER_HOST:-}" ] || [ "${DOCKER_HOST}" = "unix:///var/run/docker.sock" ]; }; then
  need_apt runsc jq
  _daemon_json=/etc/docker/daemon.json
  _current=$(cat "$_daemon_json" 2>/dev/null || true)
  [ -n "$_current" ] || _current='{}'
  # The least the sandboxes need:
  #   --host-uds=open  lets code connect to the one host socket mounted into
  #                    it (the call socket); without it gVisor refuses the
  #                    mount and no sandbox starts. It cannot create or bind one.
  #   --network=none   no network stack at all inside the sandbox, whatever a
  #                    container asks for (sandboxes already use NetworkMode none).
  # The platform stays gVisor's default (ptrace in Debian 12's release, the
  # only one that works without /dev/kvm); GVISOR_PLATFORM=kvm or systrap
  # (a newer gVisor) is passed on as --platform.
  # An entry the operator wrote is kept as it is; only a missing --host-uds is added.
  _next=$(jq --arg platform "${GVISOR_PLATFORM:-}" '
    if .runtimes.runsc == null then
      .runtimes.runsc = {path: "/usr/bin/runsc",
                         runtimeArgs: (["--host-uds=open", "--network=none"]
                                       + (if $platform == "" then [] else ["--platform=" + $platform] end))}
    elif ([.runtimes.runsc.runtimeArgs[]? | select(startswith("--host-uds"))] | length) == 0 then
      .runtimes.runsc.runtimeArgs = ((.runtimes.runsc.runtimeArgs // []) + ["--host-uds=open"])
    else . end' <<<"$_current") || die "$_daemon_json is not valid JSON; fix it and run again"
  if [ "$(jq -S . <<<"$_current")" != "$(jq -S . <<<"$_next")" ]; then
    log "registering gVisor (runsc) with the Docker engine in $_daemon_json"
    mkdir -p "$(dirname "$_daemon_json")"
    printf '%s\n' "$_next" >"$_daemon_json"
  fi
  if ! _gvisor_registered; then
    # dockerd reloads its runtimes on SIGHUP, without stopping any container.
    pkill -HUP -x dockerd || die "dockerd is not running; cannot register runsc"
    for _i in $(seq 1 40); do
      _gvisor_registered && break
      sleep 0.25
    done
    _gvisor_registered || die "dockerd did not pick up the runsc runtime from $_daemon_json; see its log"
    unset _i
  fi
  unset _daemon_json _current _next
fi
