# MCP: the npm MCP servers (servers/), the SDK of each protocol version
# (tests/mcp/versions/) and the conformance suite with the Node 22
# it needs (tests/conformance/: for our client and for our server face), all
# from their committed lock files. Node and npm come from Debian.
command -v node >/dev/null 2>&1 || need_apt nodejs
command -v npm >/dev/null 2>&1 || need_apt npm
# server-puppeteer's puppeteer would download a browser of its own: it uses
# Debian's chromium (PUPPETEER_LAUNCH_OPTIONS in its mcpServers entry) instead.
PUPPETEER_SKIP_DOWNLOAD=1 npm_ci "$HARNESS_ROOT/servers"
# The catalog servers' tests start a Redis of their own on loopback.
need_apt redis-server
# The official SDK at each protocol version, for the client's version tests.
npm_ci "$HARNESS_ROOT/tests/mcp/versions"
npm_ci "$HARNESS_ROOT/tests/conformance"
# The default servers/mcp.json roots the filesystem server at data/files/ and keeps
# the memory server's graph under data/; both must exist before the servers start.
mkdir -p "$HARNESS_ROOT/workspace" "$HARNESS_ROOT/data/files"
