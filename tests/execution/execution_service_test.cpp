// The execution service on the fake warm pool and a fake clock: a session id
// opens one sandbox however many first requests race for it, sessions still
// starting count in the limits, and a session idles out as the clock says.
// Time moves only when a test advances the clock; no test sleeps or times anything.
#include <future>

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "bridge/fake_tools.hpp"
#include "execution/fake_warm_pool.hpp"
#include "harness/execution/errors.hpp"
#include "harness/execution/execution_service.hpp"
#include "support/drive_io.hpp"
#include "support/fake_clock.hpp"

namespace harness::execution {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using answer = result<execute_outcome>;

class ExecutionService : public ::testing::Test {
 protected:
  ~ExecutionService() override {
    if (!service) return;
    auto stopped = spawn(service->shutdown());
    // Sandboxes are removed a moment after their answer, on the clock.
    for (int i = 0; i < 10 && stopped.wait_for(0s) != std::future_status::ready; ++i) {
      clock.advance(1s);
      settle();
    }
    EXPECT_EQ(stopped.wait_for(0s), std::future_status::ready) << "shutdown waits for something that never comes";
    EXPECT_EQ(pool->count().alive, 0) << "a sandbox outlived the service";
    EXPECT_EQ(python_pool->count().alive, 0) << "a Python sandbox outlived the service";
  }

  // with_python: the service has a Python pool too (else Python is refused).
  void start(execution_config config = {}, bool with_python = false) {
    pool->count_blocks = true;
    python_pool->count_blocks = true;
    service = create_execution_service(io.get_executor(), {pool, with_python ? python_pool : nullptr},
                                       std::make_shared<bridge::testing::fake_tools>(), nullptr, config, clock);
  }

  void settle() { harness::testing::settle(io); }
  template <class T>
  std::future<T> spawn(asio::awaitable<T> work) {
    return harness::testing::spawn(io, std::move(work));
  }
  template <class T>
  T run(asio::awaitable<T> work) {
    return harness::testing::run_now(io, std::move(work));
  }

  asio::awaitable<answer> execute(const std::string& user, const std::string& session_id,
                                  sandbox::language lang = sandbox::language::javascript) {
    execute_request request;
    request.user_id = user;
    request.code = "globalThis.n = (globalThis.n ?? 0) + 1; return n";
    request.session_id = session_id;
    request.language = lang;
    return service->execute(std::move(request));
  }

  // Holds every claim until the test lets them go, as cold starts keep requests waiting.
  void hold_claims() { pool->claim_gate = std::make_shared<core::async_event>(io.get_executor()); }
  void release_claims() {
    pool->claim_gate->set();
    settle();
  }

  asio::io_context io;
  harness::testing::fake_clock clock;
  std::shared_ptr<testing::fake_pool> pool = std::make_shared<testing::fake_pool>(io.get_executor());
  std::shared_ptr<testing::fake_pool> python_pool = std::make_shared<testing::fake_pool>(io.get_executor());
  std::shared_ptr<execution_service> service;
};

TEST_F(ExecutionService, ASessionKeepsTheLanguageOfItsFirstBlock) {
  start({}, true);
  auto js = run(execute("alice", "nb"));
  ASSERT_TRUE(js) << js.error().describe();
  EXPECT_EQ(js->language, sandbox::language::javascript);
  auto mixed = run(execute("alice", "nb", sandbox::language::python));
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.error().code, execution::errc::language_mismatch);
  EXPECT_NE(mixed.error().message.find("runs javascript, not python"), std::string::npos) << mixed.error().describe();
  // The session is untouched, and Python runs in a session of its own, from the Python pool.
  auto again = run(execute("alice", "nb"));
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->block.value, 2);
  auto py = run(execute("alice", "py", sandbox::language::python));
  ASSERT_TRUE(py) << py.error().describe();
  EXPECT_EQ(py->language, sandbox::language::python);
  EXPECT_EQ(pool->count().claims, 1);
  EXPECT_EQ(python_pool->count().claims, 1);
}

// A one-shot block stopped before it has its sandbox opens none.
TEST_F(ExecutionService, AOneShotBlockStoppedBeforeItStartsOpensNoSandbox) {
  start();
  execute_request request;
  request.user_id = "alice";
  request.code = "return 1";
  request.stop = std::make_shared<block_stop>();
  request.stop->request();
  auto out = run(service->execute(std::move(request)));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, core::errc::cancelled) << out.error().describe();
  EXPECT_EQ(pool->count().claims, 0);
}

TEST_F(ExecutionService, PythonWithoutAPythonPoolIsRefused) {
  start();
  auto py = run(execute("alice", "py", sandbox::language::python));
  ASSERT_FALSE(py);
  EXPECT_EQ(py.error().code, execution::errc::unsupported_language);
  EXPECT_EQ(service->session_count(), 0u);
}

TEST_F(ExecutionService, EightFirstCallsWithOneNewSessionIdOpenOneSandboxAndShareIt) {
  start();
  hold_claims();
  std::vector<std::future<answer>> calls;
  for (int i = 0; i < 8; ++i) calls.push_back(spawn(execute("alice", "nb-1")));
  // One request starts the sandbox; the others find the session starting,
  // which is running a block for its first request: busy, as for any block.
  EXPECT_EQ(pool->count().claims, 1);
  std::size_t busy = 0;
  std::optional<std::size_t> opener;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].wait_for(0s) != std::future_status::ready) {
      EXPECT_FALSE(opener) << "two requests wait for a sandbox";
      opener = i;
      continue;
    }
    auto refused = calls[i].get();
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, execution::errc::session_busy);
    ++busy;
  }
  EXPECT_EQ(busy, 7u);
  ASSERT_TRUE(opener);
  release_claims();
  ASSERT_EQ(calls[*opener].wait_for(0s), std::future_status::ready);
  auto first = calls[*opener].get();
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_EQ(first->block.value, 1);
  EXPECT_TRUE(first->opened);
  EXPECT_EQ(first->session_id, "nb-1");
  EXPECT_FALSE(first->ended);

  // The same sandbox and its state serve the next block.
  auto second = run(execute("alice", "nb-1"));
  ASSERT_TRUE(second) << second.error().describe();
  EXPECT_EQ(second->block.value, 2);
  EXPECT_FALSE(second->opened);
  EXPECT_EQ(pool->count().claims, 1);
  EXPECT_EQ(service->session_count(), 1u);
}

TEST_F(ExecutionService, SessionsStillStartingCountInTheUsersLimit) {
  start({.max_sessions_per_user = 2});
  hold_claims();
  auto a = spawn(execute("alice", "s1"));
  auto b = spawn(execute("alice", "s2"));
  auto c = run(execute("alice", "s3"));
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, execution::errc::too_many_sessions);
  EXPECT_NE(c.error().hint.find("SANDBOX_MAX_SESSIONS_PER_USER"), std::string::npos) << c.error().hint;
  EXPECT_EQ(pool->count().claims, 2);
  // Another user's share is their own.
  auto bob = spawn(execute("bob", "s1"));
  EXPECT_EQ(pool->count().claims, 3);
  release_claims();
  for (auto* started : {&a, &b, &bob}) {
    ASSERT_EQ(started->wait_for(0s), std::future_status::ready);
    auto r = started->get();
    EXPECT_TRUE(r) << r.error().describe();
  }
}

TEST_F(ExecutionService, SessionsStillStartingCountInTheGlobalLimit) {
  start({.max_sessions = 2});
  hold_claims();
  auto a = spawn(execute("alice", "s1"));
  auto b = spawn(execute("bob", "s1"));
  auto c = run(execute("carol", "s1"));
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, execution::errc::too_many_sessions);
  release_claims();
  EXPECT_TRUE(a.get());
  EXPECT_TRUE(b.get());
}

TEST_F(ExecutionService, ASessionIdleForItsTimeoutEndsAndTheNextBlockStartsAfresh) {
  start({.idle_timeout = 60s});
  auto first = run(execute("alice", "nb"));
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_EQ(first->block.value, 1);
  clock.advance(59s);  // idle, but not long enough
  auto second = run(execute("alice", "nb"));
  ASSERT_TRUE(second) << second.error().describe();
  EXPECT_EQ(second->block.value, 2);
  EXPECT_FALSE(second->opened);
  clock.advance(60s);  // idle since the second block ended: the session is over
  auto third = run(execute("alice", "nb"));
  ASSERT_TRUE(third) << third.error().describe();
  EXPECT_EQ(third->block.value, 1) << "a fresh sandbox has none of the old state";
  EXPECT_TRUE(third->opened);
  EXPECT_EQ(pool->count().claims, 2);
  // The old sandbox is removed a moment after.
  clock.advance(1s);
  settle();
  EXPECT_EQ(pool->count().alive, 1);
  EXPECT_EQ(service->session_count(), 1u);
}

TEST_F(ExecutionService, ASessionEndedWhileItsSandboxStartsAnswersAsAStoppedSandbox) {
  start();
  hold_claims();
  auto opening = spawn(execute("alice", "nb"));
  auto ended = run(service->end_session("alice", "nb"));
  EXPECT_TRUE(ended) << ended.error().describe();
  EXPECT_EQ(service->session_count(), 0u);
  release_claims();
  ASSERT_EQ(opening.wait_for(0s), std::future_status::ready);
  auto r = opening.get();
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_FALSE(r->block.ok);
  EXPECT_EQ(r->block.error.value("name", ""), "SandboxError");
  EXPECT_TRUE(r->ended);
  clock.advance(1s);
  settle();
  EXPECT_EQ(pool->count().alive, 0) << "its sandbox was removed";
  // The id can be used again, for a fresh sandbox.
  auto again = run(execute("alice", "nb"));
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->block.value, 1);
}

}  // namespace
}  // namespace harness::execution
