#!/usr/bin/env bash
# What one sandbox costs at rest, for sizing a replica (docs/DEPLOYMENT.md):
# starts a server with a pool of N warm sandboxes, then reads each
# container's memory (docker stats) and the server's own RSS.
#   bench/sizing_bench.sh [N]   (default 8)
# HARNESS_BIN=path runs another build. Kept-session blocks per second and fresh
# sandboxes per second under load come from bench/load_bench.sh.
# SESSIONS=1 then opens N sessions (one `return 1` block each, every one a
# claim of those very N pooled sandboxes), waits for the pool to refill and
# settle, and reads the same N containers again: memory per idle session.
# SANDBOX_RUNTIME=runsc runs the sandboxes under gVisor (bench/runtime_bench.sh).
# Besides what docker stats reports (the container's memory cgroup: usage less
# inactive file pages), it prints the cgroup's anonymous and shmem/page-cache
# parts and the PSS of the processes in it, so the runtimes can be compared.
# BENCH_LANGUAGE=python measures Python sandboxes (SESSIONS=1 implied): the
# Python pool keeps none until Python code is claimed, so the server runs no
# JavaScript pool and SANDBOX_PYTHON_POOL_MAX=N, the N sessions are opened
# first (each claim from the pool or a cold start, as it comes; each block
# returns its container's id, read from /proc/self/mountinfo), then, once the
# Python pool is at rest, the sessions and the Python sandboxes the pool
# holds then are read (BENCH_LANGUAGE=python bench/runtime_bench.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-8}
port=${BENCH_PORT:-3921}
language=${BENCH_LANGUAGE:-javascript}
unset NODE_EXTRA_CA_CERTS
case $language in
  javascript) pool_env="SANDBOX_POOL_SIZE=$n SANDBOX_POOL_MAX=$n" sessions=${SESSIONS:-0} ;;
  python) pool_env="SANDBOX_POOL_SIZE=0 SANDBOX_PYTHON_POOL_MAX=$n" sessions=1 ;;
  *) echo "sizing_bench: BENCH_LANGUAGE is javascript or python, not $language" >&2; exit 2 ;;
esac
log=$(mktemp)
# shellcheck disable=SC2086
env ENV_FILE=/dev/null PORT=$port LOG_LEVEL=warn $pool_env SANDBOX_OWNER=bench-$$ \
  SANDBOX_MAX_SESSIONS=$((n + 4)) MCP_CONFIG="$root/tests/http/no_mcp_servers.json" \
  "${HARNESS_BIN:-$root/build/src/mcp-harness}" 2>"$log" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT
# shellcheck source=wait_pool.sh
. "$root/bench/wait_pool.sh"
if [ "$language" = javascript ]; then
  wait_pool "$port" "$n"
else
  for _ in $(seq 1 100); do curl -s -o /dev/null "localhost:$port/health/live" && break; sleep 0.2; done
fi
sleep 2  # let the runtimes settle after their warm-up blocks
limit_mb=$(grep -m1 '^# SANDBOX_MEMORY_MB=' "$root/.env.example" | cut -d= -f2)
BENCH_DIR="$root/bench" python3 - "$n" "$port" "$server" "bench-$$" "${limit_mb:-256}" "$sessions" "$language" <<'PY'
import glob, http.client, json, os, statistics, subprocess, sys, time
sys.path.insert(0, os.environ["BENCH_DIR"])
from bench_rows import record
n, port, server, owner, limit_mb, sessions = (int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4],
                                              int(sys.argv[5]), sys.argv[6] == "1")
language = sys.argv[7]
python = language == "python"
runtime = (os.environ.get("SANDBOX_RUNTIME") or "engine default") + (", Python" if python else "")

def mib(text):
    for unit, f in (("GiB", 1024), ("MiB", 1), ("KiB", 1 / 1024), ("B", 1 / 1024 / 1024)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * f
    raise ValueError(text)

def cgroup_dir(cid):
    for pattern in (f"/sys/fs/cgroup/memory/docker/{cid}", f"/sys/fs/cgroup/memory/*/docker-{cid}.scope",
                    f"/sys/fs/cgroup/system.slice/docker-{cid}.scope", f"/sys/fs/cgroup/docker/{cid}"):
        found = glob.glob(pattern)
        if found:
            return found[0]
    return None

def cgroup_parts(cid):
    """MiB: anonymous memory, shmem (tmpfs; under gVisor the sandbox's own
    memory file), all page cache, and the PSS of the cgroup's processes."""
    d = cgroup_dir(cid)
    if not d:
        return None
    stat = dict(line.split() for line in open(f"{d}/memory.stat"))
    get = lambda *keys: next((int(stat[k]) for k in keys if k in stat), 0) / 2**20
    pss = 0
    for pid in open(f"{d}/cgroup.procs").read().split():
        try:
            for line in open(f"/proc/{pid}/smaps_rollup"):
                if line.startswith("Pss:"):
                    pss += int(line.split()[1]) / 1024
        except OSError:
            pass
    return {"anon": get("total_rss", "anon"), "shmem": get("total_shmem", "shmem"),
            "cache": get("total_cache", "file"), "pss": pss}

def measure(ids):
    out = subprocess.run(["docker", "stats", "--no-stream", "--format", "{{.ID}} {{.MemUsage}}", *ids],
                         capture_output=True, text=True, check=True).stdout
    used = {line.split()[0]: mib(line.split(" ", 1)[1].split("/")[0].strip()) for line in out.splitlines()}
    parts = [p for p in (cgroup_parts(c) for c in ids) if p]
    return [used[c[:12]] if c[:12] in used else used[c] for c in ids], parts

def pool_at_rest():
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
    c.request("GET", "/health")
    pool = json.loads(c.getresponse().read())["components"]["pool.python" if python else "pool"]
    return pool["starting"] == 0 and pool["ready"] >= pool["target"]

def describe(label, used, parts):
    med = statistics.median(used)
    line = f"{len(used)} {label} ({runtime}): docker stats median {med:.1f} MiB, max {max(used):.1f} MiB"
    if parts:
        m = {k: statistics.median(p[k] for p in parts) for k in parts[0]}
        line += (f"; cgroup medians: anon {m['anon']:.1f} MiB, shmem {m['shmem']:.1f} MiB, page cache "
                 f"{m['cache']:.1f} MiB; PSS of its processes {m['pss']:.1f} MiB")
    print(line)
    return med, parts

def rss_mb():
    return int(next(l for l in open(f"/proc/{server}/status") if l.startswith("VmRSS")).split()[1]) / 1024

def containers():
    return subprocess.run(["docker", "ps", "-q", "--no-trunc", "--filter", f"label=org.mcp-harness.sandbox={owner}"],
                          capture_output=True, text=True, check=True).stdout.split()

def settle():
    end = time.monotonic() + 120
    while not pool_at_rest() and time.monotonic() < end:  # the refill's starts are done
        time.sleep(0.2)
    time.sleep(2)

if python:
    # Sessions first (the pool has none until Python code is claimed); each
    # block names its container, so the sessions are known among the pool's.
    conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=120)
    code = ("import re\nm = re.search(r'/containers/([0-9a-f]{64})/', open('/proc/self/mountinfo').read())\n"
            "return m and m.group(1)")
    session_ids = []
    for i in range(n):
        body = json.dumps({"userId": f"idle{i}", "sessionId": f"idle-{i}", "language": "python", "code": code})
        conn.request("POST", "/execute", body, {"Content-Type": "application/json"})
        out = json.loads(conn.getresponse().read())
        assert out.get("result"), f"the block did not name its container: {out}"
        session_ids.append(out["result"])
    settle()
    live = containers()
    assert set(session_ids) <= set(live), "a session's sandbox is gone"
    ids = [c for c in live if c not in session_ids]  # the Python pool's, after those claims
else:
    ids = containers()
pool_used, pool_parts = measure(ids) if ids else ([], [])
if pool_used:
    pool_med, _ = describe(f"warm sandboxes (pool of {len(ids) if python else n})", pool_used, pool_parts)
print(f"server RSS {rss_mb():.1f} MiB; the limit per sandbox (SANDBOX_MEMORY_MB) {limit_mb} MiB")
if pool_used:
    print(f"per GiB of the engine host: {1024 / pool_med:.0f} idle sandboxes, {1024 // limit_mb} at their memory limit; "
          f"this host: {os.cpu_count()} cores, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') // 2**20} MiB")
numbers = {"runtime": os.environ.get("SANDBOX_RUNTIME", ""), "language": language, "pool_mib": pool_used,
           "pool_parts": pool_parts}
if python:
    session_used, session_parts = measure(session_ids)
    describe("idle Python sessions, one block run in each", session_used, session_parts)
    numbers.update(session_mib=session_used, session_parts=session_parts)
elif sessions:
    # Every pooled sandbox is claimed by a session of its own (distinct users:
    # SANDBOX_MAX_SESSIONS_PER_USER), so the sessions are exactly these ids.
    conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)
    for i in range(len(ids)):
        body = json.dumps({"userId": f"idle{i}", "sessionId": f"idle-{i}", "code": "return 1"})
        conn.request("POST", "/execute", body, {"Content-Type": "application/json"})
        out = json.loads(conn.getresponse().read())
        assert out.get("result") == 1 and out["sandbox"]["warm"], out
    assert set(ids) <= set(containers()), "a session's sandbox is gone"
    settle()
    session_used, session_parts = measure(ids)
    describe("idle sessions, one block run in each", session_used, session_parts)
    numbers.update(session_mib=session_used, session_parts=session_parts)
record("sizing", **numbers)
PY
