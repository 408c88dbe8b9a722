// Code that really tries to get out of the sandbox, run in the real image on
// the real engine with the hardened settings. Each test states the attack and
// what must happen.
#include <cstdlib>

#include <future>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include "sandbox/sandbox_fixture.hpp"

namespace harness::sandbox {
namespace {

using testing::sandbox_fixture;
using escape = sandbox_fixture;

TEST_F(escape, root_filesystem_is_read_only) {
  auto r = run_code(R"(
    const fs = require('fs');
    const out = {};
    for (const p of ['/pwned', '/etc/passwd', '/opt/sandbox/runner.js', '/usr/local/bin/x']) {
      try { fs.writeFileSync(p, 'x'); out[p] = 'written'; } catch (e) { out[p] = e.code; }
    }
    console.log(JSON.stringify(out));)");
  auto j = report(r);
  for (auto& [path, code] : j.items()) EXPECT_TRUE(code == "EROFS" || code == "EACCES") << path << ": " << code;
  EXPECT_EQ(r.outcome, run_outcome::ok);
}

TEST_F(escape, runs_unprivileged_without_capabilities) {
  auto r = run_code(R"(
    const fs = require('fs');
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const field = (n) => status.split('\n').find((l) => l.startsWith(n + ':')).split(/\s+/)[1];
    let setuid;
    try { process.setuid(0); setuid = 'became root'; } catch (e) { setuid = e.code; }
    console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), capEff: field('CapEff'),
      capBnd: field('CapBnd'), noNewPrivs: field('NoNewPrivs'), setuid }));)");
  auto j = report(r);
  EXPECT_EQ(j["uid"], 1000);
  EXPECT_EQ(j["gid"], 1000);
  EXPECT_EQ(j["capEff"], "0000000000000000");
  EXPECT_EQ(j["capBnd"], "0000000000000000");
  EXPECT_EQ(j["noNewPrivs"], "1");
  EXPECT_EQ(j["setuid"], "EPERM");
}

TEST_F(escape, no_network_at_all) {
  // 192.0.2.1 is TEST-NET-1: nothing would answer even if a route existed.
  auto r = run_code(R"(
    const net = require('net'), dns = require('dns').promises, os = require('os');
    const tcp = await new Promise((resolve) => {
      const s = net.connect({ host: '192.0.2.1', port: 80, timeout: 3000 });
      s.on('connect', () => { s.destroy(); resolve('connected'); });
      s.on('timeout', () => { s.destroy(); resolve('timeout'); });
      s.on('error', (e) => resolve(e.code));
    });
    let lookup;
    try { await dns.lookup('registry.npmjs.org'); lookup = 'resolved'; } catch (e) { lookup = e.code; }
    console.log(JSON.stringify({ tcp, lookup, interfaces: Object.keys(os.networkInterfaces()) }));)");
  auto j = report(r);
  EXPECT_EQ(j["tcp"], "ENETUNREACH");
  EXPECT_NE(j["lookup"], "resolved");
  EXPECT_EQ(j["interfaces"], nlohmann::json::array({"lo"}));
}

TEST_F(escape, fork_bomb_is_contained_and_reported) {
  config.pids_limit = 64;
  config.timeout = std::chrono::milliseconds(4000);
  auto b = backend();
  // The host must keep answering while the bomb runs: ping the engine meanwhile.
  auto bomb = boost::asio::co_spawn(io, b->run_once("task-bomb", R"(
    const { spawn } = require('child_process');
    spawn('/bin/sh', ['-c', 'b(){ b | b & }; b'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 60000));)"),
                                    boost::asio::use_future);
  auto pinger = [](std::shared_ptr<docker::engine_client> e) -> boost::asio::awaitable<int> {
    boost::asio::steady_timer t(co_await boost::asio::this_coro::executor);
    int ok = 0;
    for (int i = 0; i < 5; ++i) {
      t.expires_after(std::chrono::milliseconds(500));
      co_await t.async_wait(boost::asio::use_awaitable);
      if (co_await e->ping()) ++ok;
    }
    co_return ok;
  };
  auto pings = boost::asio::co_spawn(io, pinger(engine), boost::asio::use_future);
  io.restart();
  io.run();
  auto r = bomb.get();
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(pings.get(), 5);
  EXPECT_EQ(r->outcome, run_outcome::pids_limit) << to_string(r->outcome) << " " << r->stderr_text;
  ASSERT_TRUE(r->failure);
  EXPECT_EQ(r->failure->code, "sandbox_pids_limit");
  EXPECT_EQ(b->live_count(), 0u);
}

TEST_F(escape, allocating_past_the_memory_limit_is_an_oom) {
  config.memory_mb = 128;
  // Buffers live outside V8's heap, so this reaches the cgroup limit, not V8's.
  auto r = run_code(R"(
    const keep = [];
    for (let i = 0; i < 64; i++) keep.push(Buffer.alloc(16 * 1024 * 1024, i));
    console.log('allocated 1 GB');)");
  EXPECT_EQ(r.outcome, run_outcome::out_of_memory) << r.stdout_text << r.stderr_text;
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->code, "sandbox_oom");
  EXPECT_EQ(r.stdout_text.find("allocated 1 GB"), std::string::npos);
}

TEST_F(escape, endless_loop_is_killed_at_the_deadline) {
  // Long enough for node to start and print even on a loaded machine.
  config.timeout = std::chrono::milliseconds(5000);
  auto r = run_code("console.log('spinning'); for (;;) {}");
  EXPECT_EQ(r.outcome, run_outcome::timeout);
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->code, "sandbox_timeout");
  EXPECT_NE(r.failure->message.find("5000 ms"), std::string::npos);
  EXPECT_EQ(r.stdout_text, "spinning\n");  // output before the kill is kept
  EXPECT_GE(r.timings.run, std::chrono::milliseconds(5000));
}

TEST_F(escape, printing_a_gigabyte_is_cut) {
  config.output_limit_bytes = 256 * 1024;
  auto r = run_code(R"(
    const line = 'x'.repeat(1023) + '\n';
    const block = line.repeat(1024);
    for (let i = 0; i < 1024; i++) process.stdout.write(block);  // 1 GB
    console.log('finished printing');)");
  EXPECT_EQ(r.outcome, run_outcome::output_limit);
  EXPECT_TRUE(r.output_truncated);
  EXPECT_LE(r.stdout_text.size() + r.stderr_text.size(), config.output_limit_bytes + 200);
  EXPECT_NE(r.stdout_text.find("[output cut"), std::string::npos);
  EXPECT_EQ(r.stdout_text.find("finished printing"), std::string::npos);
}

TEST_F(escape, no_secret_in_the_environment) {
  ::setenv("LLM_API_KEY", "sk-canary-3b5e", 1);
  ::setenv("MCP_SECRET_TOKEN", "mcp-canary-77aa", 1);
  auto r = run_code(R"(
    const fs = require('fs');
    let pid1;
    try { pid1 = fs.readFileSync('/proc/1/environ', 'utf8').split('\0').filter(Boolean); } catch (e) { pid1 = e.code; }
    console.log(JSON.stringify({ own: process.env, pid1 }));)");
  EXPECT_EQ(r.stdout_text.find("canary"), std::string::npos) << r.stdout_text;
  auto j = report(r);
  EXPECT_FALSE(j["own"].contains("LLM_API_KEY"));
  EXPECT_FALSE(j["own"].contains("NODE_EXTRA_CA_CERTS"));
  for (auto& [key, value] : j["own"].items()) {
    EXPECT_TRUE(key == "NODE_ENV" || key == "HOME" || key == "PATH" || key == "HOSTNAME" || key == "NODE_VERSION" ||
                key == "YARN_VERSION")
        << "unexpected variable " << key;
  }
}

TEST_F(escape, setuid_unshare_and_mount_are_refused) {
  auto r = run_code(R"(
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
    console.log(JSON.stringify({ setuidFiles,
      unshare: run('unshare', ['--user', '--map-root-user', 'id', '-u']),
      unshareMount: run('unshare', ['--mount', 'id', '-u']),
      mount: run('mount', ['-t', 'tmpfs', 'none', '/workspace']),
      mountProc: run('mount', ['-t', 'proc', 'proc', '/tmp']) }));)");
  auto j = report(r);
  EXPECT_EQ(j["setuidFiles"], nlohmann::json::array());
  for (const char* what : {"unshare", "unshareMount", "mount", "mountProc"}) {
    auto& x = j[what];
    // Either the tool is absent from the image or it ran and failed.
    EXPECT_TRUE(x["e"] == "ENOENT" || (x["status"].is_number() && x["status"] != 0)) << what << ": " << x.dump();
    if (x["e"].is_null()) {
      std::string err = x["err"];
      EXPECT_TRUE(err.find("Operation not permitted") != std::string::npos ||
                  err.find("must be superuser") != std::string::npos ||
                  err.find("permission denied") != std::string::npos)
          << what << ": " << err;
    }
  }
}

TEST_F(escape, tmpfs_fills_up_at_its_cap_and_cannot_execute) {
  config.tmp_mb = 8;
  auto r = run_code(R"(
    const fs = require('fs'), { spawnSync } = require('child_process');
    const chunk = Buffer.alloc(1024 * 1024, 1);
    let written = 0, error = null;
    const fd = fs.openSync('/tmp/fill', 'w');
    try { for (let i = 0; i < 64; i++) { fs.writeSync(fd, chunk); written++; } } catch (e) { error = e.code; }
    fs.closeSync(fd);
    fs.unlinkSync('/tmp/fill');
    fs.writeFileSync('/workspace/tool', '#!/bin/sh\necho escaped\n', { mode: 0o755 });
    const x = spawnSync('/workspace/tool');
    console.log(JSON.stringify({ written, error, exec: x.error ? x.error.code : x.status }));)");
  auto j = report(r);
  EXPECT_EQ(j["error"], "ENOSPC");
  EXPECT_LE(j["written"].get<int>(), 8);
  EXPECT_GE(j["written"].get<int>(), 6);
  EXPECT_EQ(j["exec"], "EACCES");  // noexec: nothing written at run time can be executed
}

}  // namespace
}  // namespace harness::sandbox

namespace harness::sandbox {
namespace {

// The sandbox image has no setuid files, so this runs the hardened settings on
// the base image, where mount is setuid root as on Debian: no-new-privileges
// must keep it from running as root (without it, mount does become root).
using escape_base = testing::sandbox_fixture;

TEST_F(escape_base, setuid_root_binary_gains_nothing) {
  const char* env_base = std::getenv("SANDBOX_BASE_IMAGE");
  config.image = env_base && *env_base ? env_base : "mcp-harness-node-base:20-local";
  if (!run(engine->inspect_image(config.image))) GTEST_SKIP() << "base image " << config.image << " not present";
  // The base has no runner: node reads the script from stdin (CommonJS, no top-level await).
  auto r = run_code(R"(
    const fs = require('fs'), { spawnSync } = require('child_process');
    let mode = 0; try { mode = fs.statSync('/usr/bin/mount').mode; } catch {}
    const x = spawnSync('/usr/bin/mount', ['-t', 'tmpfs', 'none', '/tmp'], { encoding: 'utf8' });
    console.log(JSON.stringify({ setuid: (mode & 0o4000) !== 0, status: x.status, err: x.stderr || '' }));)");
  auto j = report(r);
  if (!j["setuid"].get<bool>()) GTEST_SKIP() << "mount is not setuid in " << config.image;
  EXPECT_NE(j["status"], 0);
  // "must be superuser": mount ran as uid 1000, the setuid bit gave it nothing.
  EXPECT_NE(j["err"].get<std::string>().find("must be superuser"), std::string::npos) << j.dump();
}

}  // namespace
}  // namespace harness::sandbox
