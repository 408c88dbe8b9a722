// Code that really tries to get out of the sandbox, on the path production
// uses: POST /execute, a pooled sandbox, the REPL runtime and its call
// socket. Each test states the attack and what must happen. (A setuid binary
// on the base image is tried in tests/sandbox/sandbox_integration_test.cpp.)
#include <gtest/gtest.h>

#include <future>

#include "execution/execute_fixture.hpp"
#include "support/sandbox_runtime.hpp"

namespace harness::testing {
namespace {

class Escape : public ExecuteIntegration {
 protected:
  void restart_with(const std::map<std::string, std::string>& overrides) {
    ASSERT_EQ(server->stop(), 0) << server->output();
    start_server(overrides);
  }
  // Runs `code` and returns what it returned; fails the test on an error.
  json returned(const std::string& code) {
    json r = execute({{"userId", "mallory"}, {"code", code}});
    EXPECT_FALSE(r.contains("error")) << r.dump();
    return r["result"];
  }
};

TEST_F(Escape, TheRootFilesystemIsReadOnly) {
  json out = returned(R"(
    const fs = require('fs');
    const out = {};
    for (const p of ['/pwned', '/etc/passwd', '/opt/sandbox/runtime.js', '/usr/local/bin/x']) {
      try { fs.writeFileSync(p, 'x'); out[p] = 'written'; } catch (e) { out[p] = e.code; }
    }
    return out;)");
  ASSERT_TRUE(out.is_object()) << out.dump();
  for (auto& [path, code] : out.items()) EXPECT_TRUE(code == "EROFS" || code == "EACCES") << path << ": " << code;
}

TEST_F(Escape, ItRunsUnprivilegedWithoutCapabilities) {
  json out = returned(R"(
    const proc = require('process'), fs = require('fs');
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const field = (n) => { const l = status.split('\n').find((x) => x.startsWith(n + ':')); return l ? l.split(/\s+/)[1] : null; };
    let setuid;
    try { proc.setuid(0); setuid = 'became root'; } catch (e) { setuid = e.code; }
    return { uid: proc.getuid(), gid: proc.getgid(), capEff: field('CapEff'), capBnd: field('CapBnd'),
             noNewPrivs: field('NoNewPrivs'), setuid };)");
  EXPECT_EQ(out["uid"], 1000);
  EXPECT_EQ(out["gid"], 1000);
  EXPECT_EQ(out["capEff"], "0000000000000000");
  EXPECT_EQ(out["capBnd"], "0000000000000000");
  // gVisor's /proc/self/status has no NoNewPrivs line; it applies the flag
  // all the same (EscapeBase.ASetuidRootBinaryGainsNothing runs under it too).
  if (under_gvisor()) {
    EXPECT_TRUE(out["noNewPrivs"] == "1" || out["noNewPrivs"].is_null()) << out.dump();
  } else {
    EXPECT_EQ(out["noNewPrivs"], "1");
  }
  EXPECT_EQ(out["setuid"], "EPERM");
}

TEST_F(Escape, ThereIsNoNetworkAtAll) {
  // 192.0.2.1 is TEST-NET-1: nothing would answer even if a route existed.
  json out = returned(R"(
    const net = require('net'), dns = require('dns').promises, os = require('os');
    const tcp = await new Promise((resolve) => {
      const s = net.connect({ host: '192.0.2.1', port: 80, timeout: 3000 });
      s.on('connect', () => { s.destroy(); resolve('connected'); });
      s.on('timeout', () => { s.destroy(); resolve('timeout'); });
      s.on('error', (e) => resolve(e.code));
    });
    let lookup;
    try { await dns.lookup('example.com'); lookup = 'resolved'; } catch (e) { lookup = e.code; }
    return { tcp, lookup, interfaces: Object.keys(os.networkInterfaces()) };)");
  // Linux has no route and says ENETUNREACH; gVisor's network stack (with
  // --network=none, loopback only) says EHOSTUNREACH. Nothing leaves either way.
  if (under_gvisor()) {
    EXPECT_TRUE(out["tcp"] == "ENETUNREACH" || out["tcp"] == "EHOSTUNREACH") << out.dump();
  } else {
    EXPECT_EQ(out["tcp"], "ENETUNREACH");
  }
  EXPECT_NE(out["lookup"], "resolved");
  EXPECT_EQ(out["interfaces"], json::array({"lo"}));
}

TEST_F(Escape, AForkBombIsContainedAndTheServerKeepsAnswering) {
  restart_with({{"SANDBOX_PIDS_LIMIT", "64"}});
  auto bomb = std::async(std::launch::async, [&] {
    return http_call(port, "POST", "/execute",
                     json{{"userId", "mallory"},
                          {"code",
                           "const { spawn } = require('child_process');\n"
                           "spawn('/bin/sh', ['-c', 'b(){ b | b & }; b'], { stdio: 'ignore' });\n"
                           "await new Promise((r) => setTimeout(r, 60000));"}}
                         .dump(),
                     "application/json", "", std::chrono::seconds(30));
  });
  // While it runs, the server answers as usual.
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
  // And the next block runs in a fresh sandbox.
  EXPECT_EQ(returned("return 'fresh'"), "fresh");
}

TEST_F(Escape, AllocatingPastTheMemoryLimitEndsTheSandbox) {
  restart_with({{"SANDBOX_MEMORY_MB", "128"}});
  // Buffers live outside V8's heap, so this reaches the cgroup limit, not V8's.
  json r = execute({{"userId", "mallory"},
                    {"code",
                     "const keep = [];\n"
                     "for (let i = 0; i < 64; i++) keep.push(Buffer.alloc(16 * 1024 * 1024, i));\n"
                     "return 'allocated 1 GB';"}});
  EXPECT_EQ(r["error"]["name"], "SandboxError") << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("memory"), std::string::npos) << r.dump();
  EXPECT_TRUE(r["result"].is_null());
  EXPECT_EQ(r["sandbox"]["ended"], true);
}

TEST_F(Escape, PrintingAGigabyteIsCapped) {
  json r = execute({{"userId", "mallory"},
                    {"code",
                     "const block = ('x'.repeat(1023) + '\\n').repeat(1024);\n"
                     "for (let i = 0; i < 1024; i++) console.log(block);\n"
                     "return 'finished printing';"}});
  EXPECT_EQ(r["result"], "finished printing") << r.dump().substr(0, 500);
  std::size_t bytes = 0;
  for (const auto& log : r["logs"]) bytes += log["text"].get<std::string>().size();
  EXPECT_LE(bytes, 64u * 1024 + 200);
  EXPECT_NE(r["logs"].back()["text"].get<std::string>().find("truncated"), std::string::npos);
}

TEST_F(Escape, NoSecretOfTheServerIsInTheSandbox) {
  restart_with({{"LLM_API_KEY", "sk-canary-3b5e"}, {"MCP_SECRET_TOKEN", "mcp-canary-77aa"}});
  json r = execute({{"userId", "mallory"}, {"code", R"(
    const fs = require('fs');
    const read = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch (e) { return e.code; } };
    return { env: require('process').env, pid1: read('/proc/1/environ'), self: read('/proc/self/environ'),
             parent: read('/proc/' + require('process').ppid + '/environ') };)"}});
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r.dump().find("canary"), std::string::npos) << r.dump();
  for (auto& [key, value] : r["result"]["env"].items()) {
    EXPECT_TRUE(key == "NODE_ENV" || key == "HOME" || key == "PATH" || key == "HOSTNAME" || key == "NODE_VERSION" ||
                key == "YARN_VERSION")
        << "unexpected variable " << key;
  }
}

TEST_F(Escape, SetuidUnshareAndMountAreRefused) {
  // The walk stats every file of the image (Python's included): seconds under
  // gVisor's ptrace platform on a busy machine, past the fixture's 4 s.
  restart_with({{"SANDBOX_TIMEOUT_MS", "30000"}});
  json out = returned(R"(
    const fs = require('fs'), path = require('path'), { spawnSync } = require('child_process');
    const setuidFiles = [];
    (function walk(dir) {
      let entries; try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
      for (const e of entries) {
        const p = path.join(dir, e.name);
        if (['/proc', '/sys', '/dev'].includes(p)) continue;
        if (e.isDirectory()) walk(p);
        else if (e.isFile() && (fs.statSync(p).mode & 0o6000)) setuidFiles.push(p);
      }
    })('/');
    const run = (cmd, args) => { const x = spawnSync(cmd, args, { encoding: 'utf8' }); return { status: x.status, err: x.stderr, e: x.error && x.error.code }; };
    return { setuidFiles,
      unshare: run('unshare', ['--user', '--map-root-user', 'id', '-u']),
      unshareMount: run('unshare', ['--mount', 'id', '-u']),
      mount: run('mount', ['-t', 'tmpfs', 'none', '/workspace']),
      mountProc: run('mount', ['-t', 'proc', 'proc', '/tmp']) };)");
  EXPECT_EQ(out["setuidFiles"], json::array());
  for (const char* what : {"unshare", "unshareMount", "mount", "mountProc"}) {
    auto& x = out[what];
    // Under gVisor a user namespace is made by gVisor's own kernel (the OCI
    // seccomp profile is not applied there: --oci-seccomp stops Node's
    // threads in release 20221219), so `unshare --user` succeeds, and the
    // host kernel never sees it. Mounting stays refused.
    if (under_gvisor() && std::string(what) == "unshare") continue;
    // Either the tool is absent from the image or it ran and failed.
    EXPECT_TRUE(x["e"] == "ENOENT" || (x["status"].is_number() && x["status"] != 0)) << what << ": " << x.dump();
  }
}

TEST_F(Escape, TmpfsFillsUpAtItsCapAndNothingWrittenCanBeExecuted) {
  restart_with({{"SANDBOX_TMP_MB", "8"}});
  json out = returned(R"(
    const fs = require('fs'), { spawnSync } = require('child_process');
    const chunk = Buffer.alloc(1024 * 1024, 1);
    let written = 0, error = null;
    const fd = fs.openSync('/tmp/fill', 'w');
    try { for (let i = 0; i < 64; i++) { fs.writeSync(fd, chunk); written++; } } catch (e) { error = e.code; }
    fs.closeSync(fd);
    fs.unlinkSync('/tmp/fill');
    fs.writeFileSync('/workspace/tool', '#!/bin/sh\necho escaped\n', { mode: 0o755 });
    const x = spawnSync('/workspace/tool');
    return { written, error, exec: x.error ? x.error.code : x.status };)");
  EXPECT_EQ(out["error"], "ENOSPC");
  EXPECT_LE(out["written"].get<int>(), 8);
  EXPECT_GE(out["written"].get<int>(), 6);
  EXPECT_EQ(out["exec"], "EACCES");  // noexec: nothing written at run time can be executed
}

}  // namespace
}  // namespace harness::testing
