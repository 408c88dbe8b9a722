#!/usr/bin/env bash
# Fresh sandboxes under load, against a server with a warm pool. First the
# engine's own capacity in the same run: workers creating, starting and
# removing containers of the same image through the Engine API (the removal
# beside, off the starts' path, as the harness does). Then `POST /execute` of
# `return 1` without a session (each request takes a fresh sandbox): demand
# paced at 50% and 80% of that capacity (cold claims should be none), then N
# clients back to back for T seconds (throughput against the capacity), then
# the same clients with a session each (a block in a kept sandbox). Prints Markdown summary rows (and JSON lines to $BENCH_JSON).
#   bench/load_bench.sh [N] [T]   (defaults 16 clients, 30 s)
# HARNESS_BIN=path runs another build; POOL_ENV="SANDBOX_POOL_SIZE=2 ..."
# sets the pool (default: the server's defaults). SANDBOX_RUNTIME=runsc runs
# the sandboxes and the engine's own containers under gVisor; PACED=0 skips
# the two paced phases (bench/runtime_bench.sh does, to save their time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
clients=${1:-16}
seconds=${2:-30}
port=${BENCH_PORT:-3919}
image=${SANDBOX_IMAGE:-mcp-harness-sandbox:latest}
socket=${DOCKER_SOCKET:-/var/run/docker.sock}
unset NODE_EXTRA_CA_CERTS

log=$(mktemp)
# shellcheck disable=SC2086
env ENV_FILE=/dev/null PORT=$port LOG_LEVEL=warn SANDBOX_OWNER=bench-$$ SANDBOX_MAX_SESSIONS=$((clients + 4)) \
  SANDBOX_MAX_SESSIONS_PER_USER=4 MCP_CONFIG="$root/tests/http/no_mcp_servers.json" ${POOL_ENV:-} \
  "${HARNESS_BIN:-$root/build/src/mcp-harness}" 2>"$log" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT
# shellcheck source=wait_pool.sh
. "$root/bench/wait_pool.sh"
wait_pool "$port" 2

BENCH_DIR="$root/bench" PACED=${PACED:-1} python3 - "$port" "$clients" "$seconds" "$image" "$socket" "$server" <<'PY'
import http.client, json, os, socket, statistics, sys, threading, time
sys.path.insert(0, os.environ["BENCH_DIR"])
from bench_rows import emit
port, clients, seconds, image, sock, server_pid = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")

def rss_mb():
    with open(f"/proc/{server_pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")

def claims():
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
    c.request("GET", "/metrics")
    text = c.getresponse().read().decode()
    out = {"warm": 0.0, "cold": 0.0}
    for line in text.splitlines():
        for kind in out:
            if line.startswith(f'harness_sandbox_claims_total{{kind="{kind}"}}'):
                out[kind] = float(line.split()[-1])
    return out

def load(session):
    """Each client posts `return 1` in a loop for `seconds`; the latencies of all answers."""
    stop = time.monotonic() + seconds
    latencies, errors = [], []
    lock = threading.Lock()
    def client(i):
        conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=120)
        body = {"userId": f"bench{i}", "code": "return 1"}
        if session:
            body["sessionId"] = f"load-{i}"
        data = json.dumps(body)
        opened = not session  # with a session, its first request opens it: not a block "in a kept session"
        while time.monotonic() < stop:
            t = time.perf_counter()
            try:
                conn.request("POST", "/execute", data, {"Content-Type": "application/json"})
                answer = json.loads(conn.getresponse().read())
                ok = answer.get("result") == 1
            except Exception as e:  # a refused or cut connection: count it, start a new one
                ok, answer = False, {"error": str(e)}
                conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=120)
            ms = (time.perf_counter() - t) * 1000
            if ok and not opened:
                opened = True
                continue
            with lock:
                (latencies if ok else errors).append(ms if ok else answer)
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.monotonic()
    for t in threads: t.start()
    for t in threads: t.join()
    return latencies, errors, time.monotonic() - started

class unix_connection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=60)
        self.path = path
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)

def engine_capacity(workers_n, seconds):
    """`workers_n` workers create and start containers of the image for
    `seconds`; as many removers force-remove them beside (as the harness
    removes a used sandbox after its answer, off the request's path).
    Started per second."""
    import queue
    stop = time.monotonic() + seconds
    started = [0]
    lock = threading.Lock()
    to_remove = queue.Queue()
    host = {"NetworkMode": "none"}
    if os.environ.get("SANDBOX_RUNTIME"):  # the same runtime as the server's sandboxes
        host["Runtime"] = os.environ["SANDBOX_RUNTIME"]
    spec = json.dumps({"Image": image, "Labels": {"org.mcp-harness.bench": "load"}, "HostConfig": host})
    def worker():
        conn = unix_connection(sock)
        while time.monotonic() < stop:
            conn.request("POST", "/containers/create", spec, {"Content-Type": "application/json"})
            cid = json.loads(conn.getresponse().read())["Id"]
            conn.request("POST", f"/containers/{cid}/start"); conn.getresponse().read()
            to_remove.put(cid)
            with lock: started[0] += 1
    def remover():
        conn = unix_connection(sock)
        while True:
            cid = to_remove.get()
            if cid is None: return
            conn.request("DELETE", f"/containers/{cid}?force=1"); conn.getresponse().read()
    removers = [threading.Thread(target=remover) for _ in range(workers_n)]
    for t in removers: t.start()
    workers = [threading.Thread(target=worker) for _ in range(workers_n)]
    began = time.monotonic()
    for t in workers: t.start()
    for t in workers: t.join()
    rate = started[0] / (time.monotonic() - began)
    for _ in removers: to_remove.put(None)
    for t in removers: t.join()
    return rate

def wait_ready(want, limit=60):
    """Until the pool holds `want` ready sandboxes again (the phases start alike)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
        c.request("GET", "/health")
        if json.loads(c.getresponse().read())["components"]["pool"]["ready"] >= want:
            return
        time.sleep(0.2)

def paced(rate, seconds):
    """Open-loop demand: one `POST /execute` every 1/rate seconds, whatever the
    answers take (a thread per request in flight)."""
    latencies, errors, threads = [], [], []
    lock = threading.Lock()
    def one(i):
        body = json.dumps({"userId": f"paced{i % 16}", "code": "return 1"})
        conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=120)
        t = time.perf_counter()
        try:
            conn.request("POST", "/execute", body, {"Content-Type": "application/json"})
            ok = json.loads(conn.getresponse().read()).get("result") == 1
        except Exception:
            ok = False
        with lock:
            (latencies if ok else errors).append((time.perf_counter() - t) * 1000)
    began = time.monotonic()
    for i in range(int(rate * seconds)):
        time.sleep(max(0.0, began + i / rate - time.monotonic()))
        t = threading.Thread(target=one, args=(i,)); t.start(); threads.append(t)
    for t in threads: t.join()
    return latencies, errors

def phase_claims(run):
    before = claims()
    out = run()
    after = claims()
    return out, after["cold"] - before["cold"], after["warm"] - before["warm"]

# The engine's capacity first, so that the paced phase can ask for a share of
# it: its best rate over 2, 4, 8 and N workers (more at once is not always
# faster on a small machine).
rates = {n: engine_capacity(n, seconds / 3) for n in sorted({2, 4, 8, clients})}
best_workers = max(rates, key=rates.get)
capacity = rates[best_workers]
engine = (f"the engine's own create+start+remove of the image, best of 2/4/8/{clients} workers ({best_workers}): "
          f"{capacity:.2f} containers/s")

# Demand below the engine's capacity: the pool should keep up, no cold claim.
for share in (0.5, 0.8) if os.environ["PACED"] != "0" else ():
    wait_ready(2)
    (lat, errs), cold, warm = phase_claims(lambda: paced(share * capacity, seconds))
    emit(f"load_paced_{int(share * 100)}",
         f"`POST /execute` of `return 1`, no session, demand paced at {share:.0%} of the engine's capacity "
         f"({share * capacity:.2f}/s), {int(seconds)} s",
         f"cold claims {int(cold)} of {int(cold + warm)}; p50 {pct(lat, 50):.0f} ms, p99 {pct(lat, 99):.0f} ms; {len(errs)} errors",
         engine, f"{cold / max(1, cold + warm):.0%} cold", "no cold claim", cold == 0 and not errs,
         cold=cold, warm=warm, p50_ms=pct(lat, 50), p99_ms=pct(lat, 99), errors=len(errs), rate=share * capacity)

# Saturating demand: N clients back to back.
wait_ready(2)
(fresh, fresh_errors, took), cold, warm = phase_claims(lambda: load(False))
rss = rss_mb()
rate = len(fresh) / took
# The machine's load drifts: the engine again right after, and the higher of
# its two rates is the bar (the harder comparison for us).
again = engine_capacity(best_workers, seconds / 3)
capacity = max(capacity, again)
engine = (f"the engine's own create+start+remove of the image, {best_workers} workers (best of 2/4/8/{clients}), "
          f"the better of before and after: {capacity:.2f} containers/s")
emit("load_fresh", f"`POST /execute` of `return 1`, no session (a fresh sandbox each), {clients} clients, {int(seconds)} s",
     f"{rate:.2f} req/s, p50 {pct(fresh, 50):.0f} ms, p99 {pct(fresh, 99):.0f} ms; cold claims {cold / max(1, cold + warm):.0%}; "
     f"{len(fresh_errors)} errors; server RSS {rss:.0f} MB",
     engine, f"{rate / capacity:.2f}x the engine's capacity", ">= 0.9x the engine's capacity",
     rate / capacity >= 0.9, req_per_s=rate, p50_ms=pct(fresh, 50), p99_ms=pct(fresh, 99), cold_share=cold / max(1, cold + warm),
     engine_per_s=capacity, engine_rates={str(k): v for k, v in rates.items()}, rss_mb=rss, errors=len(fresh_errors))
kept, kept_errors, took = load(True)
emit("load_session", f"a block of `return 1` in a kept session (its opening left out), {clients} clients each with its own, {int(seconds)} s",
     f"{len(kept) / took:.0f} blocks/s, p50 {pct(kept, 50):.1f} ms, p99 {pct(kept, 99):.1f} ms; {len(kept_errors)} errors",
     "-", "-", "-", None, blocks_per_s=len(kept) / took, p50_ms=pct(kept, 50), p99_ms=pct(kept, 99))
if fresh_errors or kept_errors:
    print("errors (first 3):", (fresh_errors + kept_errors)[:3], file=sys.stderr)
PY
