# Sourced by the benches that start a server. wait_pool PORT N returns once
# the server on PORT has N pooled sandboxes ready (or after 40 s; the bench
# then measures what it gets, cold starts included).
wait_pool() {
  local port=$1 want=$2 ready
  for _ in $(seq 1 200); do
    ready=$(curl -s "localhost:$port/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["components"]["pool"]["ready"])' 2>/dev/null || echo 0)
    [ "$ready" -ge "$want" ] && return 0
    sleep 0.2
  done
}

# wait_everything PORT: until the server on PORT has a pooled sandbox and its
# MCP server "everything" is up (or after 60 s).
wait_everything() {
  local port=$1 up
  for _ in $(seq 1 300); do
    up=$(curl -s "localhost:$port/health" | python3 -c 'import json,sys; c=json.load(sys.stdin)["components"]; print(int(c["pool"]["ready"]>=1 and c["mcp.everything"]["status"]=="up"))' 2>/dev/null || echo 0)
    [ "$up" = 1 ] && return 0
    sleep 0.2
  done
}
