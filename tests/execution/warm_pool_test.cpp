// The warm pool on a fake sandbox backend and the fake clock: it refills to
// its size, waits out its backoff after a failed start by the clock, gives up
// on a container that never says `ready` at ready_timeout, and removes what
// it holds at shutdown. No Docker, no real time.
#include "harness/execution/warm_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "harness/core/async_event.hpp"
#include "harness/core/errors.hpp"
#include "harness/sandbox/sandbox.hpp"
#include "support/fake_clock.hpp"

namespace harness::execution {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

// How a fake container's runtime starts.
enum class start_kind { ready, silent, dies };

// The container's output: `{"type":"ready"}` then nothing until close()
// (ready); nothing until close() (silent); the end of the stream at once, as
// a runtime that crashed on its way up (dies).
class fake_stream final : public docker::attach_stream {
 public:
  fake_stream(const asio::any_io_executor& executor, start_kind kind)
      : closed_(executor), says_ready_(kind == start_kind::ready) {
    if (kind == start_kind::dies) closed_.set();
  }
  asio::awaitable<status> write_stdin(std::string_view, std::chrono::milliseconds) override { co_return status{}; }
  status close_stdin() override { return {}; }
  asio::awaitable<result<std::optional<docker::output_chunk>>> read(std::chrono::milliseconds) override {
    if (says_ready_ && !said_) {
      said_ = true;
      co_return std::optional<docker::output_chunk>(docker::output_chunk{.data = "{\"type\":\"ready\"}\n"});
    }
    co_await closed_.wait();
    co_return std::optional<docker::output_chunk>();
  }
  void close() override { closed_.set(); }

 private:
  core::async_event closed_;
  bool says_ready_;
  bool said_ = false;
};

struct backend_counts {
  int starts = 0;
  int stopped = 0;
};

class fake_container final : public sandbox::sandbox_container {
 public:
  fake_container(const asio::any_io_executor& executor, std::shared_ptr<backend_counts> counts, int n, start_kind kind)
      : counts_(std::move(counts)), id_("c" + std::to_string(n) + std::string(12, '0')), stream_(executor, kind) {}
  const std::string& id() const override { return id_; }
  const std::string& task_id() const override { return task_; }
  docker::attach_stream& stream() override { return stream_; }
  asio::awaitable<status> stop() override {
    if (!stopped_) ++counts_->stopped;
    stopped_ = true;
    stream_.close();
    co_return status{};
  }

 private:
  std::shared_ptr<backend_counts> counts_;
  std::string id_;
  std::string task_ = "pool";
  fake_stream stream_;
  bool stopped_ = false;
};

class fake_backend final : public sandbox::sandbox_backend {
 public:
  explicit fake_backend(asio::any_io_executor executor) : executor_(std::move(executor)) {}
  using sandbox::sandbox_backend::start;
  asio::awaitable<result<std::unique_ptr<sandbox::sandbox_container>>> start(std::string, std::string,
                                                                             sandbox::language lang) override {
    const int n = ++counts->starts;
    languages.push_back(lang);
    if (fail_next > 0) {
      --fail_next;
      co_return make_error(core::errc::internal_error, "the engine said no");
    }
    start_kind kind = says_ready ? start_kind::ready : start_kind::silent;
    if (die_next > 0) {
      --die_next;
      kind = start_kind::dies;
    }
    co_return std::unique_ptr<sandbox::sandbox_container>(std::make_unique<fake_container>(executor_, counts, n, kind));
  }
  asio::awaitable<result<std::size_t>> sweep(std::function<bool(const std::string&)>) override {
    co_return std::size_t{0};
  }
  asio::awaitable<void> shutdown() override { co_return; }
  std::size_t live_count() const override { return 0; }

  std::shared_ptr<backend_counts> counts = std::make_shared<backend_counts>();
  int fail_next = 0;                         // starts the engine refuses
  int die_next = 0;                          // containers whose runtime ends before `ready`
  std::vector<sandbox::language> languages;  // of each start
  bool says_ready = true;

 private:
  asio::any_io_executor executor_;
};

struct WarmPool : ::testing::Test {
  asio::io_context io;
  testing::fake_clock clock;
  std::shared_ptr<fake_backend> backend = std::make_shared<fake_backend>(io.get_executor());

  // on_demand_max > 0: none kept until claims come, then up to that many.
  std::shared_ptr<warm_pool> make(std::size_t size, std::size_t on_demand_max = 0) {
    pool_config config;
    config.size = size;
    config.max_size = std::max(size, on_demand_max);
    config.on_demand = on_demand_max > 0;
    config.language = on_demand_max > 0 ? sandbox::language::python : sandbox::language::javascript;
    config.parallel_starts = 1;
    config.ready_timeout = 20s;
    auto pool = create_warm_pool(io.get_executor(), clock, backend, config);
    pool->start();
    settle();
    return pool;
  }
  void advance(std::chrono::milliseconds by) {
    clock.advance(by);
    settle();
  }
  // Runs what is ready; restart() first, as an io_context that ran out of work stays stopped.
  void settle() {
    io.restart();
    io.poll();
  }
  // Claims, and runs what is ready: the answer, or nullopt while it waits.
  std::optional<result<sandbox_lease>> claim(const std::shared_ptr<warm_pool>& pool) {
    // Shared: a claim still waiting when this returns writes into it later.
    auto lease = std::make_shared<std::optional<result<sandbox_lease>>>();
    asio::co_spawn(
        io, [pool, lease]() -> asio::awaitable<void> { *lease = co_await pool->claim(); }, [](std::exception_ptr) {});
    settle();
    return std::move(*lease);
  }
  void shut(const std::shared_ptr<warm_pool>& pool) {
    asio::co_spawn(io, pool->shutdown(), [](std::exception_ptr) {});
    settle();
  }
};

TEST_F(WarmPool, RefillsToItsSize) {
  auto pool = make(2);
  EXPECT_EQ(backend->counts->starts, 2);
  EXPECT_EQ(pool->stats().ready, 2u);
  shut(pool);
  EXPECT_EQ(backend->counts->stopped, 2);
}

TEST_F(WarmPool, AFailedStartWaitsOutItsBackoffOnTheClock) {
  backend->fail_next = 1;
  auto pool = make(1);
  EXPECT_EQ(backend->counts->starts, 1);
  EXPECT_EQ(pool->stats().failed_starts, 1u);
  advance(499ms);
  EXPECT_EQ(backend->counts->starts, 1) << "no start before the backoff (500 ms) has passed";
  advance(1ms);
  EXPECT_EQ(backend->counts->starts, 2);
  EXPECT_EQ(pool->stats().ready, 1u);
  shut(pool);
}

TEST_F(WarmPool, AContainerThatNeverSaysReadyIsStoppedAtTheReadyTimeout) {
  backend->says_ready = false;
  auto pool = make(1);
  EXPECT_EQ(backend->counts->starts, 1);
  advance(19s);
  EXPECT_EQ(backend->counts->stopped, 0);
  advance(1s);
  EXPECT_EQ(backend->counts->stopped, 1);
  EXPECT_EQ(pool->stats().failed_starts, 1u);
  EXPECT_EQ(pool->stats().ready, 0u);
  backend->says_ready = true;
  shut(pool);
}

TEST_F(WarmPool, AClaimTakesAReadySandboxAndAReplacementFollows) {
  auto pool = make(1);
  auto lease = claim(pool);
  ASSERT_TRUE(lease && *lease);
  EXPECT_TRUE((*lease)->warm);
  EXPECT_EQ(pool->stats().warm_claims, 1u);
  advance(10ms);  // the replacement starts a moment after the claim
  EXPECT_EQ(backend->counts->starts, 2);
  EXPECT_EQ(pool->stats().ready, 1u);
  lease->value().channel.reset();
  shut(pool);
}

TEST_F(WarmPool, AColdClaimStartsAnotherWhenARuntimeDiesOnItsWayUp) {
  auto pool = make(0);  // no pool: every claim starts its own sandbox
  backend->die_next = 2;
  auto lease = claim(pool);
  ASSERT_TRUE(lease && *lease) << (lease ? lease->error().describe() : "no answer");
  EXPECT_EQ(backend->counts->starts, 3);
  EXPECT_EQ(backend->counts->stopped, 2) << "the two dead ones are removed";
  EXPECT_EQ(pool->stats().died_before_ready, 2u);
  lease->value().channel.reset();
  shut(pool);
}

TEST_F(WarmPool, AColdClaimGivesUpAfterThreeRuntimesDied) {
  auto pool = make(0);
  backend->die_next = 5;
  auto lease = claim(pool);
  ASSERT_TRUE(lease);
  ASSERT_FALSE(*lease);
  EXPECT_NE(lease->error().message.find("ended before"), std::string::npos) << lease->error().describe();
  EXPECT_EQ(backend->counts->starts, 3);
  EXPECT_EQ(pool->stats().died_before_ready, 3u);
  shut(pool);
}

TEST_F(WarmPool, AnEngineThatRefusesIsNotRetriedByTheClaim) {
  auto pool = make(0);
  backend->fail_next = 1;
  auto lease = claim(pool);
  ASSERT_TRUE(lease);
  EXPECT_FALSE(*lease);
  EXPECT_EQ(backend->counts->starts, 1);
  EXPECT_EQ(pool->stats().died_before_ready, 0u);
  shut(pool);
}

TEST_F(WarmPool, AnOnDemandPoolKeepsNoneUntilItsLanguageIsClaimedThenFollowsTheClaims) {
  auto pool = make(0, 2);
  advance(5s);
  EXPECT_EQ(backend->counts->starts, 0) << "nothing is started for a language nobody used";
  EXPECT_EQ(pool->stats().target, 0u);
  auto lease = claim(pool);
  ASSERT_TRUE(lease && *lease);
  EXPECT_FALSE((*lease)->warm);
  advance(1s);
  EXPECT_GE(pool->stats().target, 1u) << "a claim raises the target";
  EXPECT_GE(pool->stats().ready, 1u) << "and the pool fills up to it";
  EXPECT_EQ(backend->languages.front(), sandbox::language::python) << "its sandboxes run its language";
  auto second = claim(pool);
  ASSERT_TRUE(second && *second);
  EXPECT_TRUE((*second)->warm);
  // Claims stop: past the sizer's window and the quiet time, it holds none again.
  for (int i = 0; i < 50; ++i) advance(1s);
  EXPECT_EQ(pool->stats().target, 0u);
  EXPECT_EQ(pool->stats().ready, 0u);
  lease->value().channel.reset();
  second->value().channel.reset();
  shut(pool);
}

}  // namespace
}  // namespace harness::execution
