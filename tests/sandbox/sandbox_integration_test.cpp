// The sandbox backend on the real engine: start, errors, and removal on every path
// (stop, a dropped handle, shutdown, sweeps). Code running in it is tested
// through the execution layer (tests/execution).
#include <sys/utsname.h>

#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "harness/docker/errors.hpp"
#include "harness/sandbox/errors.hpp"
#include "harness/sandbox/process_label.hpp"
#include "harness/sandbox/sandbox_health.hpp"
#include "sandbox/sandbox_fixture.hpp"

namespace harness::sandbox {
namespace {

using SandboxRun = testing::sandbox_fixture;

TEST_F(SandboxRun, AMissingImageSaysHowToBuildIt) {
  config.image = "mcp-harness-no-such-image:0";
  auto b = backend();
  auto r = run(b->start("task-1"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, harness::docker::errc::image_not_found);
  EXPECT_NE(r.error().message.find("mcp-harness-no-such-image:0"), std::string::npos);
  EXPECT_NE(r.error().hint.find("sandbox/build-image.sh"), std::string::npos);
}

TEST_F(SandboxRun, BadTaskIdsAreRefused) {
  auto b = backend();
  EXPECT_EQ(run(b->start("../etc")).error().code, harness::sandbox::errc::bad_request);
  EXPECT_EQ(run(b->start("")).error().code, harness::sandbox::errc::bad_request);
  EXPECT_EQ(b->live_count(), 0u);
}

TEST_F(SandboxRun, SweepRemovesOnlyOrphans) {
  auto b = backend();
  auto owned = run(b->start("task-live"));
  ASSERT_TRUE(owned) << owned.error().describe();
  // An orphan, as a crashed server would leave it, and one a live task still claims.
  auto orphan = run(engine->create_container(hardened_container_body(config, "task-dead"), ""));
  auto claimed = run(engine->create_container(hardened_container_body(config, "task-claimed"), ""));
  ASSERT_TRUE(orphan && claimed);
  auto removed = run(b->sweep([](const std::string& task) { return task == "task-claimed"; }));
  ASSERT_TRUE(removed) << removed.error().describe();
  EXPECT_EQ(*removed, 1u);
  EXPECT_EQ(run(engine->inspect_container(*orphan)).error().code, harness::docker::errc::not_found);
  EXPECT_TRUE(run(engine->inspect_container(*claimed)));
  EXPECT_TRUE(run(engine->inspect_container((*owned)->id())));
  // At start-up nothing is live and a fresh backend owns nothing: both remaining go.
  EXPECT_EQ(*run(backend()->sweep(nullptr)), 2u);
  EXPECT_TRUE(run((*owned)->stop()));
}

// Another harness process with the same SANDBOX_OWNER on this engine (a
// server beside the `mcp-harness mcp` processes clients start) keeps its
// sandboxes while it runs; those of a process that is gone are swept.
TEST_F(SandboxRun, SweepLeavesTheContainersOfAnotherRunningProcess) {
  auto made_by = [&](const std::string& process, const std::string& task) {
    auto body = hardened_container_body(config, task);
    body["Labels"][process_label] = process;
    return run(engine->create_container(body, ""));
  };
  const std::string init = process_label_of(1);  // a process that runs as long as the machine does
  ASSERT_FALSE(init.empty());
  auto others = made_by(init, "task-of-another-process");
  const auto cut = init.rfind('/');
  const std::string later = init.substr(0, cut) + "/" + std::to_string(std::stoll(init.substr(cut + 1)) + 1);
  auto gone = made_by(later, "task-of-a-gone-process");  // the pid, but of a process started later
  ASSERT_TRUE(others && gone);
  EXPECT_EQ(*run(backend()->sweep(nullptr)), 1u);
  EXPECT_EQ(run(engine->inspect_container(*gone)).error().code, harness::docker::errc::not_found);
  EXPECT_TRUE(run(engine->inspect_container(*others)));
  EXPECT_TRUE(run(engine->remove_container(*others, true)));
}

TEST_F(SandboxRun, ShutdownRemovesRunningContainersAndRefusesNewOnes) {
  auto b = backend();
  auto a = run(b->start("task-a"));
  auto c = run(b->start("task-b"));
  ASSERT_TRUE(a && c);
  EXPECT_EQ(b->live_count(), 2u);
  run(b->shutdown());
  EXPECT_EQ(b->live_count(), 0u);
  EXPECT_EQ(run(engine->inspect_container((*a)->id())).error().code, harness::docker::errc::not_found);
  EXPECT_EQ(run(b->start("task-c")).error().code, harness::sandbox::errc::shutting_down);
  EXPECT_TRUE(run((*a)->stop()));  // already gone: still fine
}

// The gVisor twin of this suite must not pass on runc: under gVisor, code
// sees gVisor's kernel (its sentry answers uname and /proc/version itself, as
// Linux 4.4.0), never the host's.
TEST_F(SandboxRun, CodeSeesTheKernelOfItsRuntime) {
  const std::string out = run_script(
      "const os = require('os'), fs = require('fs');"
      "console.log(JSON.stringify({ release: os.release(), version: fs.readFileSync('/proc/version', 'utf8') }));");
  auto seen = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(seen.is_object()) << out;
  struct utsname host {};
  ASSERT_EQ(::uname(&host), 0);
  if (harness::testing::under_gvisor()) {
    EXPECT_NE(seen["release"], host.release) << "SANDBOX_RUNTIME=runsc, yet the sandbox ran on the host's kernel";
    EXPECT_EQ(seen["release"], "4.4.0") << seen.dump();
  } else {
    EXPECT_EQ(seen["release"], host.release) << seen.dump();
  }
}

TEST_F(SandboxRun, ADroppedHandleStillRemovesItsContainer) {
  auto b = backend();
  std::string id;
  {
    auto started = run(b->start("task-dropped"));
    ASSERT_TRUE(started);
    id = (*started)->id();
  }  // destroyed without stop(): removal is queued on the executor
  io.restart();
  io.run();
  EXPECT_EQ(b->live_count(), 0u);
  EXPECT_EQ(run(engine->inspect_container(id)).error().code, harness::docker::errc::not_found);
}

TEST_F(SandboxRun, HealthReportsEngineImageAndRuntime) {
  sandbox_health health(engine, config.image, config.runtime);
  EXPECT_FALSE(health.check().up);
  run(health.refresh());
  auto h = health.check();
  EXPECT_TRUE(h.up) << h.detail.dump();
  EXPECT_EQ(h.detail["engine"]["reachable"], true);
  EXPECT_FALSE(h.detail["engine"]["version"].get<std::string>().empty());
  EXPECT_EQ(h.detail["image"]["present"], true);
  EXPECT_EQ(h.detail["image"]["id"].get<std::string>().rfind("sha256:", 0), 0u);
  EXPECT_EQ(h.detail["runtime"]["registered"], true) << h.detail.dump();
  EXPECT_EQ(h.detail["runtime"]["gvisor"], harness::testing::under_gvisor()) << h.detail.dump();
  if (config.runtime.empty()) {
    EXPECT_EQ(h.detail["runtime"]["engineDefault"], true);
  }
  if (harness::testing::under_gvisor()) {
    EXPECT_EQ(h.detail["runtime"]["name"], "runsc");
    EXPECT_EQ(h.detail["runtime"]["hostUds"], "open") << "the set-up grants connecting to host sockets, no more";
  }

  sandbox_health unregistered(engine, config.image, "mcp-harness-no-such-runtime");
  run(unregistered.refresh());
  EXPECT_FALSE(unregistered.check().up);
  EXPECT_EQ(unregistered.check().detail["runtime"]["registered"], false);
  EXPECT_NE(unregistered.check().detail["reason"].get<std::string>().find("not registered"), std::string::npos);

  sandbox_health missing(engine, "mcp-harness-no-such-image:0", config.runtime);
  run(missing.refresh());
  EXPECT_FALSE(missing.check().up);
  EXPECT_EQ(missing.check().detail["image"]["present"], false);
}

}  // namespace
}  // namespace harness::sandbox

namespace harness::sandbox {
namespace {

// The sandbox image has no setuid files, so this runs a container with the
// hardened settings on the base image, where mount is setuid root as on
// Debian: no-new-privileges must keep it from running as root (without it,
// mount does become root).
using EscapeBase = testing::sandbox_fixture;

TEST_F(EscapeBase, ASetuidRootBinaryGainsNothing) {
  const char* env_base = std::getenv("SANDBOX_BASE_IMAGE");
  config.image = env_base && *env_base ? env_base : "mcp-harness-node-base:20-local";
  if (!run(engine->inspect_image(config.image))) GTEST_SKIP() << "base image " << config.image << " not present";
  const std::string script = R"(
    const fs = require('fs'), { spawnSync } = require('child_process');
    let mode = 0; try { mode = fs.statSync('/usr/bin/mount').mode; } catch {}
    const x = spawnSync('/usr/bin/mount', ['-t', 'tmpfs', 'none', '/tmp'], { encoding: 'utf8' });
    console.log(JSON.stringify({ setuid: (mode & 0o4000) !== 0, status: x.status, err: x.stderr || '' }));)";
  const std::string out = run_script(script);
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  if (!j["setuid"].get<bool>()) GTEST_SKIP() << "mount is not setuid in " << config.image;
  EXPECT_NE(j["status"], 0);
  // "must be superuser": mount ran as uid 1000, the setuid bit gave it nothing.
  EXPECT_NE(j["err"].get<std::string>().find("must be superuser"), std::string::npos) << j.dump();
}

}  // namespace
}  // namespace harness::sandbox
