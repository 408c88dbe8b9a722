#!/usr/bin/env python3
"""Interleaved rounds for bench/toolcall_bench.sh (stdio): N sequential echo
calls from a block in a kept session of the harness on PORT, from the bare
stdio client, and from that client behind bench/hop_relay.c, round after
round in rotating order, so the machine's drift (it moves by a third within
minutes here) falls on all three alike. Each side first makes W untimed calls.
Prints {"ours": [ms...], "bare": [...], "relay": [...]}. With PORT,PORT2 a
second harness (another runtime: bench/toolcall_bench.sh with ALSO_RUNTIME)
is a fourth side in the same rotation, "ours2". A port may name the language
its session's blocks are written in, PORT:python (default javascript): with
PORT,PORT:python one harness serves both sides, each in a session of its own
(bench/toolcall_bench.sh with ALSO_LANGUAGE=python).
  toolcall_rounds.py PORT[:LANGUAGE][,PORT2[:LANGUAGE]] N W R RELAY_BINARY"""
import json
import os
import subprocess
import sys
import urllib.request

ports, n, warm, rounds, relay = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
# (port, language, session id) per harness side; sessions apart when two sides share a server.
harnesses = [(p.partition(":")[0], p.partition(":")[2] or "javascript", "toolcall-bench" + (f"-{i}" if i else ""))
             for i, p in enumerate(ports)]
client = os.path.join(os.path.dirname(os.path.abspath(__file__)), "direct_stdio_client.js")
env = {k: v for k, v in os.environ.items() if k != "NODE_EXTRA_CA_CERTS"}


def start(extra):
    return subprocess.Popen(["node", client, str(n), str(warm), "stdin"], env={**env, **extra},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def execute(harness, code):
    port, language, session = harness
    body = json.dumps({"userId": "bench", "sessionId": session, "language": language,
                       "code": code[language]}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/execute", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as answer:
        reply = json.load(answer)
    if "error" in reply:
        sys.exit(f"toolcall_rounds: the block failed: {reply['error']}")
    return reply["result"]


def client_round(proc):
    proc.stdin.write("go\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())["ms"]


clients = {"bare": start({}), "relay": start({"RELAY": relay})}
for proc in clients.values():
    if not json.loads(proc.stdout.readline()).get("ready"):
        sys.exit("toolcall_rounds: a client did not get ready")
# The same work in each language: W untimed calls, then N sequential calls timed inside the block.
warm_up = {"javascript": f"for (let i = 0; i < {warm}; i++) await callMCPTool('everything__echo', {{message: 'warm-up'}}); return 0",
           "python": f"for i in range({warm}):\n    await call_mcp_tool('everything__echo', {{'message': 'warm-up'}})\nreturn 0"}
block = {"javascript": f"const t = process.hrtime(); for (let i = 0; i < {n}; i++) await callMCPTool('everything__echo', "
                       "{message: 'm' + i}); const [s, ns] = process.hrtime(t); return s * 1000 + ns / 1e6;",
         "python": f"import time\nt = time.perf_counter()\nfor i in range({n}):\n"
                   "    await call_mcp_tool('everything__echo', {'message': 'm' + str(i)})\n"
                   "return (time.perf_counter() - t) * 1000"}
for harness in harnesses:
    execute(harness, warm_up)
sides = {"ours": lambda: execute(harnesses[0], block), "bare": lambda: client_round(clients["bare"]),
         "relay": lambda: client_round(clients["relay"])}
if len(harnesses) > 1:
    sides["ours2"] = lambda: execute(harnesses[1], block)
order = list(sides)
times = {side: [] for side in sides}
for r in range(rounds):
    k = r % len(order)
    for side in order[k:] + order[:k]:
        times[side].append(sides[side]())
for proc in clients.values():
    proc.stdin.close()
    proc.wait(timeout=30)
print(json.dumps(times))
