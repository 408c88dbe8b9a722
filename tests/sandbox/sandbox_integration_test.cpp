// The cold path on the real engine: results, errors, and cleanup on every path.
#include <cstdio>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "harness/docker/errors.hpp"
#include "harness/sandbox/errors.hpp"
#include "harness/sandbox/sandbox_health.hpp"
#include "sandbox/sandbox_fixture.hpp"

namespace harness::sandbox {
namespace {

using sandbox_run = testing::sandbox_fixture;

TEST_F(sandbox_run, returns_output_status_and_timing) {
  auto r = run_code("console.log('hello'); console.error('note'); return {answer: 42};");
  EXPECT_EQ(r.outcome, run_outcome::ok);
  EXPECT_FALSE(r.failure);
  EXPECT_EQ(r.stdout_text, "hello\n{ answer: 42 }\n");
  EXPECT_EQ(r.stderr_text, "note\n");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.container_id.size(), 64u);
  EXPECT_GT(r.timings.total.count(), 0);
  EXPECT_GE(r.timings.total, r.timings.run);
  std::printf("cold run: create+attach %lld ms, start+write %lld ms, run %lld ms, total %lld ms\n",
              static_cast<long long>(r.timings.create.count()), static_cast<long long>(r.timings.start.count()),
              static_cast<long long>(r.timings.run.count()), static_cast<long long>(r.timings.total.count()));
}

TEST_F(sandbox_run, await_works_at_top_level) {
  auto r = run_code("await new Promise((ok) => setTimeout(ok, 50)); console.log(typeof require);");
  EXPECT_EQ(r.stdout_text, "function\n");
}

TEST_F(sandbox_run, a_thrown_error_is_a_code_error_with_the_stack) {
  auto r = run_code("throw new TypeError('bad input here');");
  EXPECT_EQ(r.outcome, run_outcome::code_error);
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->code, harness::sandbox::errc::code_error);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("TypeError: bad input here"), std::string::npos);
}

TEST_F(sandbox_run, a_missing_image_says_how_to_build_it) {
  config.image = "mcp-harness-no-such-image:0";
  auto b = backend();
  auto r = run(b->run_once("task-1", "1"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, harness::docker::errc::image_not_found);
  EXPECT_NE(r.error().message.find("mcp-harness-no-such-image:0"), std::string::npos);
  EXPECT_NE(r.error().hint.find("sandbox/build-image.sh"), std::string::npos);
}

TEST_F(sandbox_run, bad_task_ids_and_oversized_code_are_refused) {
  auto b = backend();
  EXPECT_EQ(run(b->run_once("../etc", "1")).error().code, harness::sandbox::errc::bad_request);
  config.max_code_bytes = 10;
  EXPECT_EQ(run(backend()->run_once("t", "console.log('too long')")).error().code, harness::sandbox::errc::bad_request);
}

TEST_F(sandbox_run, sweep_removes_only_orphans) {
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

TEST_F(sandbox_run, shutdown_removes_running_containers_and_refuses_new_ones) {
  auto b = backend();
  auto a = run(b->start("task-a"));
  auto c = run(b->start("task-b"));
  ASSERT_TRUE(a && c);
  EXPECT_EQ(b->live_count(), 2u);
  run(b->shutdown());
  EXPECT_EQ(b->live_count(), 0u);
  EXPECT_EQ(run(engine->inspect_container((*a)->id())).error().code, harness::docker::errc::not_found);
  EXPECT_EQ(run(b->run_once("task-c", "1")).error().code, harness::sandbox::errc::shutting_down);
  EXPECT_TRUE(run((*a)->stop()));  // already gone: still fine
}

TEST_F(sandbox_run, a_dropped_handle_still_removes_its_container) {
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

TEST_F(sandbox_run, health_reports_engine_and_image) {
  sandbox_health health(engine, config.image);
  EXPECT_FALSE(health.check().up);
  run(health.refresh());
  auto h = health.check();
  EXPECT_TRUE(h.up) << h.detail.dump();
  EXPECT_EQ(h.detail["engine"]["reachable"], true);
  EXPECT_FALSE(h.detail["engine"]["version"].get<std::string>().empty());
  EXPECT_EQ(h.detail["image"]["present"], true);
  EXPECT_EQ(h.detail["image"]["id"].get<std::string>().rfind("sha256:", 0), 0u);

  sandbox_health missing(engine, "mcp-harness-no-such-image:0");
  run(missing.refresh());
  EXPECT_FALSE(missing.check().up);
  EXPECT_EQ(missing.check().detail["image"]["present"], false);
}

}  // namespace
}  // namespace harness::sandbox
