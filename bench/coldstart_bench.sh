#!/usr/bin/env bash
# Cold start: POST /execute of `return 1` with the warm pool off (every block
# creates, attaches and starts its container and waits for the runtime's
# `ready`), beside the raw Docker Engine API doing only create + attach + start
# + wait for `ready` of a container with the very same settings (copied from
# one of the server's own containers), in one run on this machine.
#   bench/coldstart_bench.sh [RUNS]   (default 20 of each)
# Measured here, the engine's own start call (raw, or `docker start`) takes
# longer than our whole cold path; we have not found why (same settings, same
# engine, interleaved runs). The figures are reported as measured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-20}
port=${BENCH_PORT:-3919}
owner=bench-cold-$$
unset NODE_EXTRA_CA_CERTS

log=$(mktemp)
ENV_FILE=/dev/null PORT=$port LOG_LEVEL=warn SANDBOX_POOL_SIZE=0 SANDBOX_OWNER=$owner \
  MCP_CONFIG="$root/tests/http/no_mcp_servers.json" "$root/build/src/mcp-harness" 2>"$log" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  curl -s "localhost:$port/health" >/dev/null && break
  sleep 0.2
done

python3 - "$root/bench" "$port" "$runs" "$owner" <<'PY'
import json, socket, statistics, subprocess, sys, time, urllib.request
sys.path.insert(0, sys.argv[1])
from bench_rows import emit
port, runs, owner = sys.argv[2], int(sys.argv[3]), sys.argv[4]

def execute(body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/execute", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)

def engine(method, path, body=None):
    """One request to the engine's unix socket; returns (status, headers bytes, socket) for attach, else JSON."""
    s = socket.socket(socket.AF_UNIX)
    s.connect("/var/run/docker.sock")
    data = json.dumps(body).encode() if body is not None else b""
    head = f"{method} {path} HTTP/1.1\r\nHost: docker\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    if "/attach" in path:
        head += "Connection: Upgrade\r\nUpgrade: tcp\r\n"
    s.sendall(head.encode() + b"\r\n" + data)
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(65536)
    header, rest = buf.split(b"\r\n\r\n", 1)
    status = int(header.split()[1])
    if "/attach" in path:
        return status, s, rest
    length = 0
    for line in header.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    while len(rest) < length:
        rest += s.recv(65536)
    s.close()
    return status, json.loads(rest) if rest else None

def pct(xs, p):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

# The same container settings as the server's own: keep a session open and copy them.
execute({"userId": "bench", "sessionId": "probe", "code": "return 1"})
cid = subprocess.run(["docker", "ps", "-q", "--filter", f"label=org.mcp-harness.sandbox={owner}"],
                     capture_output=True, text=True, check=True).stdout.split()[0]
info = json.loads(subprocess.run(["docker", "inspect", cid], capture_output=True, text=True, check=True).stdout)[0]
c, h = info["Config"], info["HostConfig"]
spec = {k: c.get(k) for k in ("Image", "Entrypoint", "Cmd", "User", "Env", "WorkingDir", "OpenStdin", "StdinOnce",
                               "AttachStdin", "AttachStdout", "AttachStderr", "Tty")}
spec["Labels"] = {"org.mcp-harness.sandbox": owner + "-raw"}
spec["HostConfig"] = {k: h.get(k) for k in ("NetworkMode", "ReadonlyRootfs", "CapDrop", "SecurityOpt", "PidsLimit",
                                            "Memory", "MemorySwap", "NanoCpus", "CpuQuota", "CpuPeriod", "Tmpfs",
                                            "Init", "Ulimits", "LogConfig")}
urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/sessions/probe?userId=bench", method="DELETE"))

def cold_execute():
    t = time.perf_counter()
    out = execute({"userId": "bench", "code": "return 1"})
    assert out["result"] == 1 and out["sandbox"]["warm"] is False, out
    return (time.perf_counter() - t) * 1000

def raw_start():
    t = time.perf_counter()
    status, created = engine("POST", "/containers/create", spec)
    assert status == 201, created
    cid = created["Id"]
    status, stream, pending = engine("POST", f"/containers/{cid}/attach?stream=1&stdin=1&stdout=1&stderr=1")
    assert status == 101, status
    status, _ = engine("POST", f"/containers/{cid}/start")
    assert status == 204, status
    buf = pending
    while b'"ready"' not in buf:  # the runtime's first frame
        chunk = stream.recv(65536)
        assert chunk, "the container ended before ready"
        buf += chunk
    ms = (time.perf_counter() - t) * 1000
    stream.close()
    engine("DELETE", f"/containers/{cid}?force=1")
    return ms

# Interleaved, so both see the same load on this shared machine; paced so the
# removal of one container (ours removes in the background) does not overlap
# the next start.
ours, raw = [], []
for _ in range(runs):
    ours.append(cold_execute())
    time.sleep(0.5)
    raw.append(raw_start())
    time.sleep(0.5)

o50, r50 = pct(ours, 50), pct(raw, 50)
emit("cold_start", f"cold POST /execute of `return 1`, pool off, p50 of {runs}",
     f"p50 {o50:.0f} ms, p99 {pct(ours, 99):.0f} ms",
     f"raw engine API create + attach + start + `ready`: p50 {r50:.0f} ms",
     f"{o50 / r50:.2f}x the raw engine calls ({o50 - r50:.0f} ms of ours on top: init, exec, HTTP)", "-", None,
     ours_ms=ours, raw_ms=raw)
PY
