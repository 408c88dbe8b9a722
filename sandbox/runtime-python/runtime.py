"""The Python sandbox runtime: the entry point.

    python3 -I -u /opt/sandbox/runtime-python/runtime.py

Speaks the protocol of docs/architecture/runtime-protocol.md on stdin and
stdout (then on the call socket once linked), as sandbox/runtime/runtime.js
does; how a Python block runs: docs/architecture/python-runtime.md.
Standard library only. SANDBOX_SKILLS_DIR and SANDBOX_WORKSPACE_DIR move
/skills and /workspace (the tests point them at temporary folders).

The modules beside this file, one job each (named runtime_* so that no
module of the agent's, a /workspace/helpers.py say, collides with them):

  runtime_repl.py         the REPL: reads frames, runs init / exec / put, says ready
  runtime_channel.py      where frames go (stdout, or the call socket once linked)
  runtime_call_socket.py  the `link` frame: connect, say hello, read frames there
  runtime_scope.py        which block a piece of code belongs to (contextvars)
  runtime_blocks.py       a block's code -> an async function over the session's globals
  runtime_helpers.py      list_mcp_tools, call_mcp_tool, ... and MCPToolError
  runtime_logs.py         print / logging / warnings -> capped `log` frames
  runtime_serialize.py    results and errors -> JSON values, with paths in messages
  runtime_files.py        init/put writes and the file change reports
  runtime_skills.py       `import skills.<name>` for folders under /skills
"""
import os
import sys

if sys.version_info < (3, 11):
    sys.exit('the sandbox runtime needs Python 3.11 or newer')

# Never a __pycache__: not beside the runtime (the image compiles its
# bytecode at build time, and the root is read-only at run time), and not in
# /skills or /workspace, where it would be reported as a file change.
sys.dont_write_bytecode = True
# -I (as the host starts it) leaves this file's folder off sys.path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import runtime_repl  # noqa: E402 (needs the path above)

if __name__ == '__main__':
    runtime_repl.main()
