#!/usr/bin/env bash
# Context sent to the LLM for one task over 1,000 records (the real server,
# sandbox and filesystem MCP server, a scripted LLM), beside what direct tool
# calling sends for the same work: every tool definition in every request and
# every result in the context. Bytes of the request bodies and o200k_base tokens.
#   bench/context_bench.sh  (CONTEXT_DUMP=<dir> also keeps the request bodies we sent)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../scripts/lib.sh
. "$root/scripts/lib.sh"
npm_ci "$root/bench/context"
unset NODE_EXTRA_CA_CERTS
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node "$root/bench/context/context_bench.js" "${BUILD_DIR:-$root/build}" "$work" >"$work/result.json"
python3 - "$root/bench" "$work/result.json" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from bench_rows import emit
r = json.load(open(sys.argv[2]))
ours, direct = r["ours"], r["direct"]
ratio = ours["tokens"] / direct["tokens"]
emit("context", f"context sent to the LLM, {r['records']:,}-record task ({r['csvBytes']:,} bytes of CSV, {r['tools']} tools)",
     f"{ours['tokens']:,} tokens, {ours['bytes']:,} bytes in {ours['requests']} requests",
     f"direct tool calling: {direct['tokens']:,} tokens, {direct['bytes']:,} bytes in {direct['requests']} requests",
     f"{ratio:.2%} of the tokens, {ours['bytes'] / direct['bytes']:.1%} of the bytes", "<= 1.5%", ratio <= 0.015,
     tokenizer=r["tokenizer"], ours=ours, direct=direct)
PY
