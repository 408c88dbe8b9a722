"""Shared by the bench scripts: one summary row per measured figure.

Each row is printed as a Markdown table row (for people) and, when the
environment variable BENCH_JSON names a file, appended to it as one JSON line
(for bench/run_all.sh, which rewrites docs/BENCHMARKS.md from those lines).
"""
import json
import os


def emit(key, what, ours, baseline, ratio, target, met, /, **numbers):
    """key: the summary row this fills (see bench/render_summary.py);
    met: True, False, or None when the row has no target. The row fields are
    positional-only, so any name (even `ours`) may be used for the raw numbers."""
    status = "-" if met is None else ("met" if met else "not met")
    print(f"| {what} | {ours} | {baseline} | {ratio} | {target} | {status} |", flush=True)
    path = os.environ.get("BENCH_JSON")
    if path:
        row = {"key": key, "what": what, "ours": ours, "baseline": baseline, "ratio": ratio, "target": target,
               "met": met, "numbers": numbers}
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")


def record(key, /, **numbers):
    """Raw numbers only, no summary row: appended to $BENCH_JSON (when set) as
    {"key": ..., "numbers": {...}} for a script that combines runs (for
    instance bench/runtime_bench.sh). bench/render_summary.py ignores keys it
    does not list."""
    path = os.environ.get("BENCH_JSON")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"key": key, "numbers": numbers}) + "\n")

