#!/usr/bin/env bash
# Warm POST /execute of `return 1+1` against `docker run --rm` of the same image
# and code, in one run on this machine. Prints Markdown summary rows (and
# appends them as JSON lines to $BENCH_JSON when set; see bench/bench_rows.py).
#   bench/execute_bench.sh [RUNS]   (default 200 warm requests, 20 docker runs)
# HARNESS_BIN=path runs another build (with SANDBOX_IMAGE=its image) for a side-by-side comparison;
# DOCKER_RUNS=0 then skips the docker run baseline and prints one line.
# SESSION_RUNS=M (default 0) then also times M blocks in one live session (a
# `sessionId` whose first block is not timed), each after the same idle
# pause as the client's floor, then M more back to back (each sent as soon as
# the last one answered), with the client's floor taken back to back too. SANDBOX_RUNTIME=runsc runs the server's
# sandboxes under gVisor (bench/runtime_bench.sh runs both runtimes).
# BENCH_LANGUAGE=python sends the blocks as Python (`"language": "python"`):
# the Python pool starts empty, so one untimed block first makes it start
# sandboxes, and each timed request waits for `pool.python` to be at rest;
# the docker run baseline runs the image's Python runtime
# (BENCH_LANGUAGE=python bench/runtime_bench.sh puts Python beside JavaScript).
# Needs a built server (./scripts/test.sh or ./scripts/run.sh did that) and the engine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-200}
docker_runs=${DOCKER_RUNS:-20}
port=${BENCH_PORT:-3917}
image=${SANDBOX_IMAGE:-mcp-harness-sandbox:latest}
language=${BENCH_LANGUAGE:-javascript}
case $language in javascript | python) ;; *) echo "execute_bench: BENCH_LANGUAGE is javascript or python, not $language" >&2; exit 2 ;; esac
unset NODE_EXTRA_CA_CERTS   # slows node start-up; the sandbox never has it either

server_bin=${HARNESS_BIN:-$root/build/src/mcp-harness}   # another build, for side-by-side runs
log=$(mktemp)
ENV_FILE=/dev/null PORT=$port LOG_LEVEL=warn SANDBOX_POOL_SIZE=2 SANDBOX_OWNER=bench-$$ \
  MCP_CONFIG="$root/tests/http/no_mcp_servers.json" "$server_bin" 2>"$log" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT
# shellcheck source=wait_pool.sh
. "$root/bench/wait_pool.sh"
wait_pool "$port" 2

body='{"userId":"bench","language":"'$language'","code":"return 1+1"}'
BENCH_DIR="$root/bench" python3 - "$port" "$runs" "$body" "$image" "$docker_runs" "${SESSION_RUNS:-0}" "$language" <<'PY'
import http.client, json, os, statistics, subprocess, sys, time, urllib.request
sys.path.insert(0, os.environ["BENCH_DIR"])
from bench_rows import emit, record
port, runs, body, image, docker_runs = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode(), sys.argv[4], int(sys.argv[5])
session_runs, language = int(sys.argv[6]), sys.argv[7]
python = language == "python"
pool_name = "pool.python" if python else "pool"  # the pool this language's claims take from (GET /health)

def pct(xs, p):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

def pool_at_rest():
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health") as r:
        pool = json.load(r)["components"][pool_name]
    return pool["starting"] == 0 and pool["ready"] >= max(pool["target"], 1)

def wait_refilled(limit_s=20):
    """Until the pool has stopped starting sandboxes and holds its target
    again. A request is measured on a server at rest, as the row says ("warm
    pool"), not beside the refill of the one before it (a container start
    takes both cores for a moment); the load bench measures under load.
    False when the pool did not get there in time (counted, and said)."""
    end = time.monotonic() + limit_s
    while not pool_at_rest():
        if time.monotonic() >= end:
            return False
        time.sleep(0.05)
    time.sleep(0.15)  # /health reuses its answer for 100 ms; let the refill settle
    return True

# The measured requests go over one kept-alive connection, as an API client
# holds one; urllib's connection per request added about 0.3 ms of its own
# (docs/BENCHMARKS.md). The pool's /health polls use another connection.
client = http.client.HTTPConnection("127.0.0.1", int(port))

def request(method, path, data=None):
    headers = {"Content-Type": "application/json"} if data is not None else {}
    client.request(method, path, body=data, headers=headers)
    response = client.getresponse()
    return response.status, response.read()

def floor_ms():
    """The client's own floor: the same client, a request the server answers
    at once (no body, no sandbox), after an idle pause as each measured
    request has (back to back, with both sides awake, it takes a quarter)."""
    time.sleep(0.3)
    t = time.perf_counter()
    request("GET", "/health/live")
    return (time.perf_counter() - t) * 1000

warm, cold, floor = [], [], []
not_at_rest = 0
parts = {"http": [], "open": [], "channel": [], "runtime": []}  # where a warm request's time went
if python:
    # The Python pool keeps nothing until Python code is claimed: this untimed
    # block (a cold start) makes it start sandboxes; its demand keeps them
    # there while the timed requests follow (one every few seconds).
    status, text = request("POST", "/execute", body)
    assert status == 200 and json.loads(text)["result"] == 2, text
wait_refilled()
floor += [floor_ms() for _ in range(20)]  # apart from the measured requests, so none is primed by it
for _ in range(runs):
    if not wait_refilled():
        not_at_rest += 1
    t = time.perf_counter()
    status, text = request("POST", "/execute", body)
    ms = (time.perf_counter() - t) * 1000
    out = json.loads(text)
    assert status == 200, text
    assert out["result"] == 2, out
    (warm if out["sandbox"]["warm"] else cold).append(ms)
    if out["sandbox"]["warm"] and "timing" in out:  # builds before the timing field have none
        t = out["timing"]
        parts["http"].append(ms - out["durationMs"])  # client, HTTP, routing, the answer's JSON
        parts["open"].append(t["openMs"])  # user's files, claim, init
        parts["channel"].append(t["blockMs"] - t["runtimeMs"])  # frames through the call socket
        parts["runtime"].append(t["runtimeMs"])  # the block in the sandbox
floor += [floor_ms() for _ in range(20)]  # before the docker runs: the connection is still fresh

# Blocks in a live session: the session is opened (its first block, untimed,
# claims a pooled sandbox), the pool refills, then each block is sent after
# the floor's idle pause, as an agent's next block follows its LLM's answer;
# then as many back to back.
session, session_parts = [], {"http": [], "channel": [], "runtime": []}
session_b2b, session_b2b_parts, floor_b2b = [], {"http": [], "channel": [], "runtime": []}, []

def time_session_blocks(body, pause, into, into_parts):
    for _ in range(session_runs):
        if pause:
            time.sleep(pause)
        t = time.perf_counter()
        status, text = request("POST", "/execute", body)
        ms = (time.perf_counter() - t) * 1000
        out = json.loads(text)
        assert status == 200 and out["result"] == 2, text
        into.append(ms)
        if "timing" in out:  # builds before the timing field have none
            timing = out["timing"]
            into_parts["http"].append(ms - out["durationMs"])
            into_parts["channel"].append(timing["blockMs"] - timing["runtimeMs"])
            into_parts["runtime"].append(timing["runtimeMs"])

if session_runs:
    session_body = json.dumps({"userId": "bench", "sessionId": "bench-live", "language": language,
                               "code": "return 1+1"}).encode()
    status, text = request("POST", "/execute", session_body)
    assert status == 200 and json.loads(text)["result"] == 2, text
    wait_refilled()
    time_session_blocks(session_body, 0.3, session, session_parts)
    # Back to back: a program driving a session (a notebook, a loop on the MCP
    # face) sends its next block at once; nothing on the path has gone idle.
    time_session_blocks(session_body, 0, session_b2b, session_b2b_parts)
    for _ in range(20):
        t = time.perf_counter()
        request("GET", "/health/live")
        floor_b2b.append((time.perf_counter() - t) * 1000)
    request("DELETE", "/sessions/bench-live?userId=bench")
    for name, xs, xparts in (("session block", session, session_parts),
                             ("session block back to back", session_b2b, session_b2b_parts)):
        print(f"{name} p50 {pct(xs, 50):.2f} ms, p99 {pct(xs, 99):.2f} ms ({len(xs)} blocks"
              + (", by part (ms): " + ", ".join(f"{k} {pct(v, 50):.2f}" for k, v in xparts.items()) if xparts["http"] else "")
              + ")", file=sys.stderr)
    print(f"the client's floor back to back (GET /health/live) p50 {pct(floor_b2b, 50):.2f} ms", file=sys.stderr)
client.close()
record("execute_runs", runtime=os.environ.get("SANDBOX_RUNTIME", ""), language=language, warm_ms=warm, cold_ms=cold, floor_ms=floor,
       not_at_rest=not_at_rest, session_ms=session,
       parts_ms=parts, session_parts_ms=session_parts,
       session_b2b_ms=session_b2b, session_b2b_parts_ms=session_b2b_parts, floor_b2b_ms=floor_b2b)

# The baseline starts a container of the same image per call and runs the same
# code in its runtime (the image's entrypoint): an init frame and an exec
# frame on stdin; the runtime answers "done" and exits when stdin closes.
# Python: the image's Python runtime, started as the server starts it.
frames = (json.dumps({"type": "init", "session": "bench", "limits": {}, "files": []}) + "\n" +
          json.dumps({"type": "exec", "id": "1", "code": "return 1+1"}) + "\n").encode()
runtime_cmd = (["--entrypoint", "python3", image, "-I", "-u", "/opt/sandbox/runtime-python/runtime.py"] if python
               else [image])
docker = []
for _ in range(docker_runs):
    t = time.perf_counter()
    p = subprocess.run(["docker", "run", "--rm", "-i", "--pull", "never", "--network", "none", *runtime_cmd],
                       input=frames, capture_output=True)
    docker.append((time.perf_counter() - t) * 1000)
    done = [json.loads(line) for line in p.stdout.splitlines() if b'"done"' in line]
    assert done and done[0]["value"] == 2, p

w50, w99 = pct(warm, 50), pct(warm, 99)
if not_at_rest:
    print(f"{not_at_rest} of {runs} requests were sent before the pool was back at its target (20 s limit)",
          file=sys.stderr)
if parts["http"]:
    print("warm p50 by part (ms): " + ", ".join(f"{k} {pct(v, 50):.2f}" for k, v in parts.items())
          + f"; the client's floor (GET /health/live) p50 {pct(floor, 50):.2f}", file=sys.stderr)
if not docker:  # DOCKER_RUNS=0: only our side (comparing two builds, see docs/BENCHMARKS.md)
    print(f"warm p50 {w50:.1f} ms, p99 {w99:.1f} ms ({len(warm)} warm of {runs} requests)")
    sys.exit(0)
d50 = pct(docker, 50)
f50 = pct(floor, 50)
# Python's rows are keys of their own (the summary's rows are JavaScript's), with the issue's target for Python.
suffix, prefix = ("_python", "Python: ") if python else ("", "")
target, met = ("p50 <= 5 ms", w50 <= 5) if python else ("p50 <= 3 ms and >= 30x faster", w50 <= 3 and d50 / w50 >= 30)
emit("execute_warm" + suffix, prefix + "`POST /execute` hello-world (`return 1+1`), warm pool, each request once the pool has refilled",
     f"p50 {w50:.1f} ms, p99 {w99:.1f} ms ({len(warm)} warm of {runs} requests"
     + (f", {not_at_rest} sent before the pool was back at its target" if not_at_rest else "")
     + f"); the client's own floor (Python `http.client`, one kept-alive connection; `GET /health/live` with it, 40 after an idle pause, apart from these): p50 {f50:.1f} ms",
     f"`docker run --rm -i` same image and code: p50 {d50:.0f} ms ({len(docker)} runs)",
     f"{d50 / w50:.0f}x faster", target, met,
     warm_p50_ms=w50, warm_p99_ms=w99, warm=len(warm), cold=len(cold), docker_p50_ms=d50,
     client_floor_p50_ms=f50, not_at_rest=not_at_rest)
if cold:
    c50 = pct(cold, 50)
    emit("execute_cold" + suffix, prefix + "`POST /execute` hello-world, pool empty (cold start)", f"p50 {c50:.0f} ms ({len(cold)} requests)",
         f"`docker run --rm -i`: p50 {d50:.0f} ms", f"{d50 / c50:.1f}x faster", "-", None, cold_p50_ms=c50)
PY
