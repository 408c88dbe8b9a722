// The one-shot cold path (run_once) under attack: how it classifies a fork
// bomb, an OOM, an endless loop and an output flood. The escape attempts
// themselves (read-only root, capabilities, network, secrets, setuid, tmpfs)
// run on the production path, in tests/execution/escape_test.cpp.
#include <cstdlib>

#include <future>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include "sandbox/sandbox_fixture.hpp"

#include "harness/sandbox/errors.hpp"

namespace harness::sandbox {
namespace {

using testing::sandbox_fixture;
using escape = sandbox_fixture;

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
  EXPECT_EQ(r->failure->code, harness::sandbox::errc::pids_limit);
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
  EXPECT_EQ(r.failure->code, harness::sandbox::errc::oom);
  EXPECT_EQ(r.stdout_text.find("allocated 1 GB"), std::string::npos);
}

TEST_F(escape, endless_loop_is_killed_at_the_deadline) {
  // Long enough for node to start and print even on a loaded machine.
  config.timeout = std::chrono::milliseconds(5000);
  auto r = run_code("console.log('spinning'); for (;;) {}");
  EXPECT_EQ(r.outcome, run_outcome::timeout);
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->code, harness::sandbox::errc::timeout);
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
