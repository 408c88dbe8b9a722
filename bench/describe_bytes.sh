#!/usr/bin/env bash
# What describe_tools costs a model's context: the bytes of its TypeScript
# declarations against the raw JSON Schemas (inputSchema + outputSchema, as
# GET /tools/{name} gives them) of the same tools, for every tool of the
# default filesystem and memory servers (servers/mcp.json). Also the one-line
# signatures search_tools gives. Deterministic (no timing).
#   bench/describe_bytes.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
port=${BENCH_PORT:-3919}
server_bin=${HARNESS_BIN:-$root/build/src/mcp-harness}
unset NODE_EXTRA_CA_CERTS
files=$(mktemp -d)
log=$(mktemp)
(cd "$root" && ENV_FILE=/dev/null PORT=$port LOG_LEVEL=warn SANDBOX_POOL_SIZE=0 SANDBOX_OWNER=bench-$$ \
  API_KEYS_FILE=/nonexistent/keys.json MCP_FS_ROOT="$files" MEMORY_FILE_PATH="$files/memory.jsonl" \
  MCP_CONFIG="$root/servers/mcp.json" exec "$server_bin" 2>"$log") &   # exec: $! is the server, which the trap stops
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$log" "$files"' EXIT
for _ in $(seq 1 100); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "localhost:$port/health/ready")" = 200 ] && break
  sleep 0.2
done

BENCH_DIR="$root/bench" python3 - "$port" <<'PY'
import json, os, sys, urllib.request
sys.path.insert(0, os.environ["BENCH_DIR"])
from bench_rows import emit
base = f"http://127.0.0.1:{sys.argv[1]}"

def post(body, headers=None):
    req = urllib.request.Request(base + "/mcp", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read() or b"null"), dict(r.headers)

def get(path):
    with urllib.request.urlopen(base + path, timeout=120) as r:
        return json.loads(r.read())

_, h = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}})
s = {"Mcp-Session-Id": h["Mcp-Session-Id"]}
call = lambda i, name, args: post({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": args}}, s)[0]["result"]
found = call(1, "search_tools", {"query": "", "limit": 50})["structuredContent"]["tools"]
names = [t["name"] for t in found]
declared = call(2, "describe_tools", {"names": names[:20]})["structuredContent"]["declarations"]
declared += call(3, "describe_tools", {"names": names[20:]})["structuredContent"]["declarations"] if len(names) > 20 else []
schema_bytes = described_bytes = signature_bytes = description_bytes = 0
for t in found:
    details = get("/tools/" + t["name"])
    schema_bytes += len(json.dumps(details.get("inputSchema"), separators=(",", ":")).encode())
    if "outputSchema" in details:
        schema_bytes += len(json.dumps(details["outputSchema"], separators=(",", ":")).encode())
    description_bytes += len(details.get("description", "").encode())
    signature_bytes += len(t["signature"].encode())
for d in declared:
    described_bytes += len(d["declaration"].encode())
assert len(declared) == len(found), (len(declared), len(found))
emit("describe_bytes", f"`describe_tools` declarations of all {len(found)} filesystem and memory tools",
     f"{described_bytes:,} bytes (doc comment + declaration); search_tools lines: {signature_bytes:,} bytes",
     f"raw JSON Schemas (input + output, compact): {schema_bytes:,} bytes, plus {description_bytes:,} bytes of descriptions",
     f"{described_bytes / (schema_bytes + description_bytes):.0%} of schemas + descriptions; the lines {signature_bytes / schema_bytes:.0%} of the schemas",
     "-", None, tools=len(found), declaration_bytes=described_bytes, schema_bytes=schema_bytes,
     description_bytes=description_bytes, signature_bytes=signature_bytes)
PY
