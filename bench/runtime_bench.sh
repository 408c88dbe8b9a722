#!/usr/bin/env bash
# The sandbox runtimes side by side: runc (the engine's default) and runsc
# (gVisor), in one run on this machine. Runs the existing benches once per
# runtime (the /execute one twice), the runtimes alternating and taking turns
# to go first (SANDBOX_RUNTIME picks the server's runtime), and prints one
# table: runsc's figure, runc's beside it, and the ratio runsc/runc. 7-9
# minutes on 2 cores.
#
#   bench/runtime_bench.sh
#
# Rows (each bench's own output is shown too, prefixed with its runtime):
#   - first block of a fresh task: `POST /execute` of `return 1+1` without a
#     session, a claim from the warm pool, each once the pool is at rest
#     (bench/execute_bench.sh, 2 runs of FIRST_BLOCKS per runtime);
#   - a block in a live session: `POST /execute` with a `sessionId` after its
#     first block (SESSION_RUNS of bench/execute_bench.sh, the same 2 runs),
#     each after a 0.3 s idle pause, and the same number back to back (two rows);
#   - tool calls from one block: sequential `callMCPTool('everything__echo')`
#     (bench/toolcall_bench.sh TOOL_CALLS TOOL_WARM TOOL_ROUNDS with
#     ALSO_RUNTIME=runsc: a server per runtime, server-everything over stdio,
#     the two and the bare stdio client taking turns round by round);
#   - fresh sandboxes per second, 16 clients back to back, and a block in a kept
#     session under the same load (bench/load_bench.sh 16 LOAD_SECONDS with
#     PACED=0; the engine's own create+start+remove rate under the same runtime);
#   - memory per idle session: IDLE_SESSIONS sessions, one block run in each,
#     as `docker stats` reports it (bench/sizing_bench.sh with SESSIONS=1): the
#     container's memory cgroup, usage less inactive file pages. Under runsc
#     that cgroup holds the whole sandbox: the Sentry (runsc-sandbox), its gofer
#     and the ptrace stub processes; the code's memory is the Sentry's memory
#     file, a memfd, so it shows as shmem. Shared file pages (the node and runsc
#     binaries) are charged to whichever cgroup read them first, under either.
# HARNESS_BIN=path runs another build (default build/src/mcp-harness).
# Needs runsc registered with the engine (docker info lists it under Runtimes).
# With BENCH_JSON set (bench/run_all.sh) the rows are appended there; each
# bench's own rows go to this script's files, not to that one.
#
# The sandbox languages side by side instead: Python beside JavaScript, under
# the engine's default runtime (or SANDBOX_RUNTIME's), in one run. About 4
# minutes on 2 cores.
#
#   BENCH_LANGUAGE=python bench/runtime_bench.sh
#
# The same benches with their BENCH_LANGUAGE switch (not LANGUAGE: gettext
# reads that one as a list of locales, and many systems set it), the
# JavaScript side being each bench as it always ran, the languages taking
# turns to go first:
#   - first block of a fresh task and a block in a live session: the /execute
#     runs as above, `return 1+1` in either language; for Python the bench
#     first sends one untimed block (the Python pool keeps none until Python
#     code is claimed), then each timed request waits for `pool.python` to
#     be at rest (SANDBOX_PYTHON_POOL_MAX, default 4);
#   - tool calls from one block: bench/toolcall_bench.sh with
#     ALSO_LANGUAGE=python: one server, a JavaScript session and a Python one
#     (`for i in range(N): await call_mcp_tool('everything__echo', ...)`) and
#     the bare stdio client taking turns round by round (11 rounds unless
#     TOOL_ROUNDS says otherwise; every round's times are printed below the
#     table);
#   - memory per idle session: bench/sizing_bench.sh with SESSIONS=1 (for
#     Python it opens the Python sessions first, see its header).
# Targets (Python): first block p50 <= 5 ms, session block p50 <= 1 ms, tool
# calls at >= 0.8x JavaScript's rate.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
first_blocks=${FIRST_BLOCKS:-10}
session_blocks=${SESSION_BLOCKS:-20}
tool_calls=${TOOL_CALLS:-1000}
tool_warm=${TOOL_WARM:-3000}
language=${BENCH_LANGUAGE:-}
tool_rounds=${TOOL_ROUNDS:-$([ -z "$language" ] && echo 5 || echo 11)}  # Python beside JavaScript: more rounds (about 1 s each per side) against the drift
load_seconds=${LOAD_SECONDS:-15}
idle_sessions=${IDLE_SESSIONS:-6}
unset NODE_EXTRA_CA_CERTS
machine="$(. /etc/os-release && echo "$PRETTY_NAME"), $(nproc) cores, kernel $(uname -r), Docker $(docker version --format '{{.Server.Version}}')"

if [ -z "$language" ]; then  # runsc beside runc
  side_var=SANDBOX_RUNTIME measured=runsc baseline=runc
  runtimes=$(docker info --format '{{json .Runtimes}}')
  case $runtimes in
    *'"runsc"'*) ;;
    *) echo "runtime_bench: runsc is not registered with the engine (docker info: $runtimes)" >&2; exit 1 ;;
  esac
  platform=$(echo "$runtimes" | grep -o -- '--platform=[a-z]*' | sed -n '1s/.*=//p' || true)  # none given: ptrace, the default of runsc 20221219
  gvisor=$(runsc --version 2>/dev/null | sed -n '1s/^runsc version //p' || true)
  machine+=", gVisor (runsc) ${gvisor:-?}, platform ${platform:-ptrace}"
elif [ "$language" = python ]; then  # Python beside JavaScript
  side_var=BENCH_LANGUAGE measured=python baseline=javascript
  image=${SANDBOX_IMAGE:-mcp-harness-sandbox:latest}
  version() { docker run --rm --pull never --network none --entrypoint "$1" "$image" "$2" 2>&1 | tr -d '\r' || echo '?'; }
  runtime=${SANDBOX_RUNTIME:-$(docker info --format "{{.DefaultRuntime}}") (the engine default)}
  machine+=", sandboxes under $runtime; in the image $(version python3 -V) and Node $(version node -v)"
else
  echo "runtime_bench: BENCH_LANGUAGE is python (Python beside JavaScript) or unset (runsc beside runc), not $language" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=()
step() {  # step SIDE COMMAND...: one bench with SIDE (a runtime or a language), its rows into $work/SIDE.jsonl
  local side=$1
  shift
  echo "== $side: ${*#"$root"/}" >&2
  if ! env "$side_var=$side" BENCH_JSON="$work/$side.jsonl" "$@" 2>&1 | sed -u "s/^/  [$side] /"; then
    failed+=("$side: ${*#"$root"/} failed")
  fi
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)
execute=("$root/bench/execute_bench.sh" "$first_blocks")
toolcall=("$root/bench/toolcall_bench.sh" "$tool_calls" "$tool_warm" "$tool_rounds")
for side in $baseline $measured; do step "$side" env DOCKER_RUNS=0 SESSION_RUNS="$session_blocks" "${execute[@]}"; done
if [ -z "$language" ]; then
  step runc env ALSO_RUNTIME=runsc "${toolcall[@]}"  # one server per runtime, their rounds interleaved
  for rt in runc runsc; do step "$rt" env PACED=0 "$root/bench/load_bench.sh" 16 "$load_seconds"; done
else
  step javascript env ALSO_LANGUAGE=python "${toolcall[@]}"  # one server, a session per language, rounds interleaved
fi
for side in $measured $baseline; do step "$side" env SESSIONS=1 "$root/bench/sizing_bench.sh" "$idle_sessions"; done
for side in $measured $baseline; do step "$side" env DOCKER_RUNS=0 SESSION_RUNS="$session_blocks" "${execute[@]}"; done
touch "$work/$baseline.jsonl" "$work/$measured.jsonl"

echo
echo "Machine: $machine; load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg); $(($(date +%s) - started)) s."
echo
if [ -z "$language" ]; then
  echo "| what | runsc (gVisor) | runc, same run | runsc/runc | target (runsc) | met? |"
else
  echo "| what | Python | JavaScript, same run | Python/JavaScript | target (Python) | met? |"
fi
echo "|---|---|---|---|---|---|"
failures=$(IFS=';'; echo "${failed[*]:-}")
BENCH_DIR="$root/bench" python3 - "$work/$measured.jsonl" "$work/$baseline.jsonl" "$tool_calls" "$load_seconds" "$failures" \
  "$measured" "$baseline" <<'PY'
import json, os, statistics, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from bench_rows import emit
gv_path, rc_path, tool_calls, load_seconds, failed, measured, baseline = sys.argv[1:8]
# gv: the side measured against its baseline rc (runsc beside runc, or Python beside JavaScript).
languages = measured == "python"
prefix = "language" if languages else "runtime"  # the rows' keys (bench/render_summary.py)
vs = "Python vs JavaScript: " if languages else "runsc vs runc: "
label = "Python" if languages else measured  # the measured side, as the targets name it

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")

def load(path):
    """Every bench's rows and records of one runtime: key -> list of numbers."""
    out = {}
    for line in open(path, encoding="utf-8"):
        if line.strip():
            row = json.loads(line)
            out.setdefault(row["key"], []).append(row["numbers"])
    return out

gv, rc = load(gv_path), load(rc_path)

def pooled(runs, field):
    return [x for run in runs for x in run[field]]

def parts(runs, field):
    names = runs[0][field].keys() if runs else ()
    return ", ".join(f"{k} {pct([x for run in runs for x in run[field][k]], 50):.2f}" for k in names
                     if any(run[field][k] for run in runs))

def latency_row(key, what, field, parts_field, target_ms, target, floor_field=None):
    a, b = gv.get("execute_runs", []), rc.get("execute_runs", [])
    if not a or not b or not pooled(a, field) or not pooled(b, field):
        print(f"| {what} | not measured: bench/execute_bench.sh failed for a {prefix} | - | - | {target} | - |")
        return
    def side(runs):
        xs = pooled(runs, field)
        return (f"p50 {pct(xs, 50):.2f} ms, p99 {pct(xs, 99):.2f} ms ({len(xs)} in {len(runs)} runs; "
                f"p50 by part: {parts(runs, parts_field)})")
    g50, r50 = pct(pooled(a, field), 50), pct(pooled(b, field), 50)
    floor = pct(pooled(a, floor_field or "floor_ms") + pooled(b, floor_field or "floor_ms"), 50)
    how = "same client, back to back" if floor_field == "floor_b2b_ms" else "same client and pause"
    extra = f"; client's own floor (`GET /health/live`, {how}) p50 {floor:.2f} ms" if floor_field else ""
    cold = sum(len(run["cold_ms"]) for run in a + b)
    emit(key, vs + what, side(a) + extra, side(b) + (f"; {cold} cold claims left out" if cold else ""),
         f"{g50 / r50:.2f}x", target, g50 <= target_ms,
         **{f"{measured}_p50_ms": g50, f"{baseline}_p50_ms": r50}, client_floor_p50_ms=floor)

first_ms, session_ms = (5, 1) if languages else (3, 1)  # the targets, for the measured side
latency_row(f"{prefix}_first_block",
            "first block of a fresh task: `POST /execute` of `return 1+1`, no session (a warm pool claim), "
            "each once the pool is at rest", "warm_ms", "parts_ms", first_ms, f"{label} p50 <= {first_ms} ms")
latency_row(f"{prefix}_session_block",
            "a block in a live session: `POST /execute` of `return 1+1` with a `sessionId`, its first block left out, "
            "each after a 0.3 s idle pause", "session_ms", "session_parts_ms", session_ms,
            f"{label} p50 <= {session_ms} ms", "floor_ms")
latency_row(f"{prefix}_session_block_b2b",
            "a block in a live session, back to back: the same blocks, each sent as soon as the last one answered",
            "session_b2b_ms", "session_b2b_parts_ms", session_ms, f"{label} p50 <= {session_ms} ms", "floor_b2b_ms")

rounds_note = ""  # Python beside JavaScript: every round, printed below the table
if languages:
    t = (rc.get("toolcall_languages") or [None])[0]
    what = (f"{tool_calls} sequential echo calls from one block (`await call_mcp_tool(...)` in a Python loop, "
            "`await callMCPTool(...)` in JavaScript; server-everything, stdio), median of rounds taken in turn by a "
            "session per language on one server and a bare stdio client")
else:
    t = (rc.get("toolcall_runtimes") or [None])[0]
    what = (f"{tool_calls} sequential `callMCPTool` echo calls from one block (server-everything, stdio), median of "
            "rounds taken in turn by a server per runtime and a bare stdio client")
if t and t["ours2"] and languages:
    n = t["calls"]
    side = lambda ours: (f"{statistics.median(ours) / n * 1000:.0f} us/call ({n / statistics.median(ours) * 1000:,.0f} "
                         f"calls/s); {statistics.median(b / o for o, b in zip(ours, t['bare'])):.2f}x the bare client's "
                         f"rate (its {statistics.median(t['bare']) / n * 1000:.0f} us/call)")
    ratios = [r / g for g, r in zip(t["ours2"], t["ours"])]  # Python's rate / JavaScript's, round by round
    ratio = statistics.median(ratios)
    of_medians = statistics.median(t["ours"]) / statistics.median(t["ours2"])
    of_best = min(t["ours"]) / min(t["ours2"])  # the least disturbed round of each
    emit("language_toolcall", vs + what, side(t["ours2"]), side(t["ours"]),
         f"{ratio:.2f}x JavaScript's rate (median of {len(t['ours'])} rounds' ratios; {of_medians:.2f}x by the median "
         f"rounds, {of_best:.2f}x by the fastest)", ">= 0.8x JavaScript's rate", ratio >= 0.8,
         python_us_per_call=statistics.median(t["ours2"]) / n * 1000,
         javascript_us_per_call=statistics.median(t["ours"]) / n * 1000, ratio=ratio, ratio_of_medians=of_medians,
         ratio_of_fastest=of_best)
    rounds_note = (f"tool call rounds, ms for {n} calls, in the order run: Python "
                   + ", ".join(f"{x:.0f}" for x in t["ours2"]) + "; JavaScript " + ", ".join(f"{x:.0f}" for x in t["ours"])
                   + "; bare client " + ", ".join(f"{x:.0f}" for x in t["bare"])
                   + "; Python/JavaScript rate by round " + ", ".join(f"{x:.2f}" for x in ratios))
elif t and t["ours2"]:
    n = t["calls"]
    side = lambda ours: (f"{statistics.median(ours) / n * 1000:.0f} us/call ({n / statistics.median(ours) * 1000:,.0f} "
                         f"calls/s); {statistics.median(b / o for o, b in zip(ours, t['bare'])):.2f}x the bare client's "
                         f"rate (its {statistics.median(t['bare']) / n * 1000:.0f} us/call)")
    ratio = statistics.median(g / r for g, r in zip(t["ours2"], t["ours"]))
    emit("runtime_toolcall", "runsc vs runc: " + what, side(t["ours2"]), side(t["ours"]),
         f"{ratio:.2f}x the time per call (median of {len(t['ours'])} rounds' ratios)", "-", None,
         runsc_us_per_call=statistics.median(t["ours2"]) / n * 1000, runc_us_per_call=statistics.median(t["ours"]) / n * 1000,
         ratio=ratio)
else:
    print(f"| {what} | not measured: bench/toolcall_bench.sh failed | - | - | - | - |")

a, b = gv.get("load_fresh"), rc.get("load_fresh")
what = f"fresh sandboxes per second: `POST /execute` of `return 1`, no session, 16 clients back to back, {load_seconds} s"
if languages:
    pass  # not measured for the languages (bench/load_bench.sh has no language switch)
elif a and b:
    side = lambda t: (f"{t['req_per_s']:.2f}/s, p50 {t['p50_ms']:.0f} ms, p99 {t['p99_ms']:.0f} ms, "
                      f"{t['cold_share']:.0%} cold claims, {t['errors']} errors; the engine's own create+start+remove "
                      f"under the same runtime {t['engine_per_s']:.2f}/s")
    a, b = a[0], b[0]
    emit("runtime_fresh", "runsc vs runc: " + what, side(a), side(b), f"{a['req_per_s'] / b['req_per_s']:.2f}x the rate", "-", None,
         runsc_per_s=a["req_per_s"], runc_per_s=b["req_per_s"], runsc_engine_per_s=a["engine_per_s"],
         runc_engine_per_s=b["engine_per_s"])
else:
    print(f"| {what} | not measured: bench/load_bench.sh failed for a runtime | - | - | - | - |")

a, b = gv.get("load_session"), rc.get("load_session")
what = f"a block in a kept session under load, 16 clients each with its own, {load_seconds} s"
if languages:
    pass
elif a and b:
    side = lambda t: f"{t['blocks_per_s']:.0f} blocks/s, p50 {t['p50_ms']:.1f} ms, p99 {t['p99_ms']:.1f} ms"
    a, b = a[0], b[0]
    emit("runtime_session_load", "runsc vs runc: " + what, side(a), side(b), f"{a['blocks_per_s'] / b['blocks_per_s']:.2f}x the rate",
         "-", None, runsc_blocks_per_s=a["blocks_per_s"], runc_blocks_per_s=b["blocks_per_s"])
else:
    print(f"| {what} | not measured: bench/load_bench.sh failed for a runtime | - | - | - | - |")

a, b = gv.get("sizing"), rc.get("sizing")
what = ("memory per idle session (one `return 1` block run in each), `docker stats` median (the container's memory "
        "cgroup: usage less inactive file pages)")
if languages:
    what = what.replace("one `return 1` block run in each", "one block run in each: `return 1` in JavaScript; in Python "
                        "one that returns its container's id, read from /proc/self/mountinfo")
if a and b and a[0].get("session_mib") and b[0].get("session_mib"):
    def side(t):
        text = f"{statistics.median(t['session_mib']):.1f} MiB ({len(t['session_mib'])} sessions"
        if t["session_parts"]:
            m = {k: statistics.median(p[k] for p in t["session_parts"]) for k in t["session_parts"][0]}
            text += (f"; cgroup anon {m['anon']:.1f}, shmem {m['shmem']:.1f} MiB; PSS of its processes "
                     f"{m['pss']:.1f} MiB")
        if not t["pool_mib"]:
            return text + "); no pooled sandbox left to read"
        return (text + f"); an unused pooled sandbox {statistics.median(t['pool_mib']):.1f} MiB"
                + (f" ({len(t['pool_mib'])} read)" if languages else ""))
    a, b = a[0], b[0]
    ga, rb = statistics.median(a["session_mib"]), statistics.median(b["session_mib"])
    emit(f"{prefix}_memory", vs + what, side(a), side(b), f"{ga / rb:.2f}x", "-", None,
         **{f"{measured}_mib": ga, f"{baseline}_mib": rb})
else:
    print(f"| memory per idle session | not measured: bench/sizing_bench.sh failed for a {prefix} | - | - | - | - |")
if rounds_note:
    print(f"\n{rounds_note}")
if failed:
    print(f"\nfailed: {failed}")
PY
[ ${#failed[@]} -eq 0 ]
