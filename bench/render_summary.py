#!/usr/bin/env python3
"""Rewrites the summary block of docs/BENCHMARKS.md from the rows the bench
scripts appended to a JSON-lines file (see bench/bench_rows.py).

  bench/render_summary.py ROWS.jsonl docs/BENCHMARKS.md MACHINE_LINE [FAILED_KEYS]

The block sits between the two marker comments below; the rest of the file is
left as it is. A row no script filled says "not measured" and why.
"""
import json
import sys

BEGIN = "<!-- summary:begin (bench/run_all.sh rewrites this block) -->"
END = "<!-- summary:end -->"

RUNSC_MISSING = "bench/runtime_bench.sh did not finish (it needs runsc registered with the engine)"
PYTHON_MISSING = "BENCH_LANGUAGE=python bench/runtime_bench.sh did not finish"

# The rows of design.md section 9 (and the cold start beside the warm one), in
# order: key, what, target, and what to say when no script measured it.
ROWS = [
    ("execute_warm", "`POST /execute` hello-world, warm pool", "p50 <= 3 ms and >= 30x faster",
     "bench/execute_bench.sh did not finish"),
    ("execute_cold", "`POST /execute` hello-world, pool empty (cold start)", "-",
     "no request fell back to a cold start in this run"),
    ("cold_start", "cold `POST /execute`, pool off", "-", "bench/coldstart_bench.sh is missing or did not finish"),
    ("toolcall", "tool call from sandbox code to an echo MCP tool", ">= 0.8x the bare client's rate",
     "bench/toolcall_bench.sh did not finish"),
    ("toolcall_http", "tool call from sandbox code to an echo MCP tool over Streamable HTTP", "-",
     "TRANSPORT=http bench/toolcall_bench.sh did not finish"),
    ("pii_mixed", "PII censor on PII-dense mixed text", ">= 200 MB/s per core and >= 60% of the bare scan",
     "bench/pii_bench.sh did not finish"),
    ("pii_clean", "PII censor on text without PII", ">= 60% of the bare scan", "bench/pii_bench.sh did not finish"),
    ("health", "`GET /health` with wrk, 50 connections", ">= 0.9 of the baseline's rate, p99 < 5 ms",
     "bench/health_bench.sh did not finish"),
    ("context", "context sent to the LLM, 1,000-record task", "<= 1.5% of direct tool calling",
     "bench/context_bench.sh is missing"),
    ("load_paced_50", "`POST /execute`, no session, demand paced at 50% of the engine's capacity", "no cold claim",
     "bench/load_bench.sh did not finish"),
    ("load_paced_80", "`POST /execute`, no session, demand paced at 80% of the engine's capacity", "no cold claim",
     "bench/load_bench.sh did not finish"),
    ("load_fresh", "`POST /execute`, no session, 16 clients back to back", ">= 0.9x the engine's capacity",
     "bench/load_bench.sh did not finish"),
    ("load_session", "a block in a kept session under load, 16 clients", "-", "bench/load_bench.sh did not finish"),
    ("mcp_execute_code", "`execute_code` of `return 1+1` over `/mcp`", "<= 1.5x POST /execute",
     "bench/mcp_execute_bench.sh did not finish"),
    ("describe_bytes", "`describe_tools` declarations against the raw schemas", "-",
     "bench/describe_bytes.sh did not finish"),
    # gVisor beside runc (bench/runtime_bench.sh): runsc's figure, runc's as the baseline.
    ("runtime_first_block", "runsc: first block of a fresh task (warm pool claim)", "runsc p50 <= 3 ms", RUNSC_MISSING),
    ("runtime_session_block", "runsc: a block in a live session, after an idle pause", "runsc p50 <= 1 ms",
     RUNSC_MISSING),
    ("runtime_session_block_b2b", "runsc: a block in a live session, back to back", "runsc p50 <= 1 ms",
     RUNSC_MISSING),
    ("runtime_toolcall", "runsc: tool calls from one block", "-", RUNSC_MISSING),
    ("runtime_fresh", "runsc: fresh sandboxes per second, 16 clients", "-", RUNSC_MISSING),
    ("runtime_memory", "runsc: memory per idle session", "-", RUNSC_MISSING),
    # Python beside JavaScript (BENCH_LANGUAGE=python bench/runtime_bench.sh): Python's figure, JavaScript's as the baseline.
    ("language_first_block", "Python: first block of a fresh task (warm pool claim)", "Python p50 <= 5 ms",
     PYTHON_MISSING),
    ("language_session_block", "Python: a block in a live session, after an idle pause", "Python p50 <= 1 ms",
     PYTHON_MISSING),
    ("language_session_block_b2b", "Python: a block in a live session, back to back", "Python p50 <= 1 ms",
     PYTHON_MISSING),
    ("language_toolcall", "Python: tool calls from one block", ">= 0.8x JavaScript's rate", PYTHON_MISSING),
    ("language_memory", "Python: memory per idle session", "-", PYTHON_MISSING),
]


def table(rows_by_key, failed):
    lines = ["| what (design.md section 9) | ours | baseline in the same run | ratio | target | met? |",
             "|---|---|---|---|---|---|"]
    for key, what, target, missing in ROWS:
        row = rows_by_key.get(key)
        if row is None:
            why = f"failed: {failed[key]}" if key in failed else f"not measured: {missing}"
            lines.append(f"| {what} | {why} | - | - | {target} | - |")
            continue
        met = row["met"]
        status = "-" if met is None else ("yes" if met else "no")
        lines.append(f"| {row['what']} | {row['ours']} | {row['baseline']} | {row['ratio']} | {row['target']} | {status} |")
    return "\n".join(lines)


def main():
    rows_path, doc_path, machine = sys.argv[1:4]
    failed = {}
    if len(sys.argv) > 4 and sys.argv[4]:
        for item in sys.argv[4].split(";"):
            key, _, why = item.partition("=")
            failed[key] = why
    rows_by_key = {}
    with open(rows_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                rows_by_key[row["key"]] = row
    doc = open(doc_path, encoding="utf-8").read()
    if BEGIN not in doc or END not in doc:
        raise SystemExit(f"{doc_path} has no summary markers ({BEGIN} ... {END})")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    block = f"{BEGIN}\n{machine}\n\n{table(rows_by_key, failed)}\n{END}"
    with open(doc_path, "w", encoding="utf-8") as f:
        f.write(head + block + tail)


if __name__ == "__main__":
    main()
