// The escape attempts and limits of escape_test.cpp, written in Python: the
// Python runtime runs in the same hardened container, so the same walls must
// hold (a read-only root, no privileges, no network, no server secrets, the
// pids and memory limits, the output cap), and native code through ctypes
// can crash only its own sandbox. Runs under runc and gVisor.
#include <gtest/gtest.h>

#include <future>

#include "execution/execute_fixture.hpp"
#include "support/sandbox_runtime.hpp"

namespace harness::testing {
namespace {

class PythonEscape : public ExecuteIntegration {
 protected:
  void restart_with(const std::map<std::string, std::string>& overrides) {
    ASSERT_EQ(server->stop(), 0) << server->output();
    start_server(overrides);
  }
  json run(const std::string& code) { return execute({{"userId", "mallory"}, {"language", "python"}, {"code", code}}); }
  // Runs `code` and returns what it returned; fails the test on an error.
  json returned(const std::string& code) {
    json r = run(code);
    EXPECT_FALSE(r.contains("error")) << r.dump();
    return r["result"];
  }
};

TEST_F(PythonEscape, TheRootFilesystemIsReadOnly) {
  json out = returned(R"(
import errno
out = {}
for p in ['/pwned', '/etc/passwd', '/opt/sandbox/runtime-python/runtime.py', '/usr/lib/python3.11/os.py']:
    try:
        open(p, 'w').write('x')
        out[p] = 'written'
    except OSError as e:
        out[p] = errno.errorcode[e.errno]
return out)");
  ASSERT_TRUE(out.is_object()) << out.dump();
  for (auto& [path, code] : out.items()) EXPECT_TRUE(code == "EROFS" || code == "EACCES") << path << ": " << code;
}

TEST_F(PythonEscape, ItRunsUnprivilegedAndCannotBecomeRoot) {
  json out = returned(R"(
import os, ctypes, ctypes.util, errno
try:
    os.setuid(0)
    setuid = 'became root'
except PermissionError as e:
    setuid = errno.errorcode[e.errno]
# The same through libc directly: native code gets no further.
libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6', use_errno=True)
rc = libc.setuid(0)
return {'uid': os.getuid(), 'euid': os.geteuid(), 'setuid': setuid,
        'ctypesSetuid': rc, 'ctypesErrno': errno.errorcode.get(ctypes.get_errno(), ''), 'after': os.geteuid()})");
  EXPECT_EQ(out["uid"], 1000);
  EXPECT_EQ(out["euid"], 1000);
  EXPECT_EQ(out["setuid"], "EPERM");
  EXPECT_EQ(out["ctypesSetuid"], -1) << out.dump();
  EXPECT_EQ(out["ctypesErrno"], "EPERM") << out.dump();
  EXPECT_EQ(out["after"], 1000);
}

TEST_F(PythonEscape, ThereIsNoNetworkAtAll) {
  json out = returned(R"(
import socket, errno
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(3)
try:
    s.connect(('192.0.2.1', 80))
    tcp = 'connected'
except socket.timeout:
    tcp = 'timeout'
except OSError as e:
    tcp = errno.errorcode.get(e.errno, str(e))
try:
    socket.getaddrinfo('example.com', 80)
    lookup = 'resolved'
except OSError as e:
    lookup = type(e).__name__
return {'tcp': tcp, 'lookup': lookup, 'interfaces': [n for _, n in socket.if_nameindex()]})");
  // Linux: ENETUNREACH; gVisor's loopback-only stack: EHOSTUNREACH (docs/SECURITY.md).
  if (under_gvisor()) {
    EXPECT_TRUE(out["tcp"] == "ENETUNREACH" || out["tcp"] == "EHOSTUNREACH") << out.dump();
  } else {
    EXPECT_EQ(out["tcp"], "ENETUNREACH") << out.dump();
  }
  EXPECT_NE(out["lookup"], "resolved");
  EXPECT_EQ(out["interfaces"], json::array({"lo"}));
}

TEST_F(PythonEscape, NoSecretOfTheServerIsInTheSandbox) {
  restart_with({{"LLM_API_KEY", "sk-canary-3b5e"}, {"MCP_SECRET_TOKEN", "mcp-canary-77aa"}});
  json r = run(R"(
import os
def read(p):
    try:
        return open(p, 'rb').read().decode('utf-8', 'replace')
    except OSError as e:
        return type(e).__name__
return {'env': dict(os.environ), 'pid1': read('/proc/1/environ'), 'self': read('/proc/self/environ'),
        'parent': read('/proc/%d/environ' % os.getppid())})");
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r.dump().find("canary"), std::string::npos) << r.dump();
}

TEST_F(PythonEscape, ACtypesCrashEndsOnlyItsSandbox) {
  json r = run("import ctypes\nctypes.string_at(0)");
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["name"], "SandboxError") << r.dump();
  EXPECT_EQ(r["sandbox"]["ended"], true);
  EXPECT_EQ(returned("return 'fresh'"), "fresh");
}

TEST_F(PythonEscape, AForkBombIsContainedAndTheServerKeepsAnswering) {
  restart_with({{"SANDBOX_PIDS_LIMIT", "64"}});
  auto bomb = std::async(std::launch::async, [&] {
    return http_call(port, "POST", "/execute",
                     json{{"userId", "mallory"},
                          {"language", "python"},
                          {"code",
                           "import os, time\n"
                           "for _ in range(200):\n"
                           "    try:\n"
                           "        if os.fork() == 0:\n"
                           "            time.sleep(60)\n"
                           "            os._exit(0)\n"
                           "    except OSError:\n"
                           "        pass\n"
                           "time.sleep(60)"}}
                         .dump(),
                     "application/json", "", std::chrono::seconds(30));
  });
  for (int i = 0; i < 5; ++i) {
    auto health = http_call(port, "GET", "/health/live");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
  }
  auto r = bomb.get();
  ASSERT_TRUE(r);
  auto body = r->json();
  ASSERT_TRUE(body.contains("error")) << r->body;
  EXPECT_EQ(body["sandbox"]["ended"], true) << r->body;
  EXPECT_EQ(returned("return 'fresh'"), "fresh");
}

TEST_F(PythonEscape, AllocatingPastTheMemoryLimitEndsTheSandbox) {
  restart_with({{"SANDBOX_MEMORY_MB", "128"}});
  json r = run("keep = []\nfor i in range(64):\n    keep.append(bytearray(16 * 1024 * 1024))\nreturn 'allocated 1 GB'");
  ASSERT_TRUE(r.contains("error")) << r.dump();
  // Python may raise MemoryError first (the block fails, the sandbox lives),
  // or the kernel kills the process (a SandboxError that says memory).
  const std::string name = r["error"]["name"].get<std::string>();
  EXPECT_TRUE(name == "MemoryError" || name == "SandboxError") << r.dump();
  if (name == "SandboxError") {
    EXPECT_NE(r["error"]["message"].get<std::string>().find("memory"), std::string::npos) << r.dump();
  }
  EXPECT_TRUE(r["result"].is_null());
}

TEST_F(PythonEscape, PrintingAGigabyteIsCapped) {
  json r =
      run("block = ('x' * 1023 + '\\n') * 1024\n"
          "for i in range(1024):\n"
          "    print(block)\n"
          "return 'finished printing'");
  EXPECT_EQ(r["result"], "finished printing") << r.dump().substr(0, 500);
  std::size_t bytes = 0;
  for (const auto& log : r["logs"]) bytes += log["text"].get<std::string>().size();
  EXPECT_LE(bytes, 64u * 1024 + 200);
  ASSERT_FALSE(r["logs"].empty());
  EXPECT_NE(r["logs"].back()["text"].get<std::string>().find("truncated"), std::string::npos);
}

}  // namespace
}  // namespace harness::testing
