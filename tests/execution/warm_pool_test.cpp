// The warm pool on a fake sandbox backend and the fake clock: it refills to
// its size, waits out its backoff after a failed start by the clock, gives up
// on a container that never says `ready` at ready_timeout, and removes what
// it holds at shutdown. No Docker, no real time.
#include "harness/execution/warm_pool.hpp"

#include <gtest/gtest.h>

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

// The container's output: `{"type":"ready"}` (unless told not to), then
// nothing until close().
class fake_stream final : public docker::attach_stream {
 public:
  fake_stream(const asio::any_io_executor& executor, bool says_ready) : closed_(executor), says_ready_(says_ready) {}
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
  fake_container(const asio::any_io_executor& executor, std::shared_ptr<backend_counts> counts, int n, bool ready)
      : counts_(std::move(counts)), id_("c" + std::to_string(n) + std::string(12, '0')), stream_(executor, ready) {}
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
  asio::awaitable<result<std::unique_ptr<sandbox::sandbox_container>>> start(std::string, std::string) override {
    const int n = ++counts->starts;
    if (fail_next > 0) {
      --fail_next;
      co_return make_error(core::errc::internal_error, "the engine said no");
    }
    co_return std::unique_ptr<sandbox::sandbox_container>(
        std::make_unique<fake_container>(executor_, counts, n, says_ready));
  }
  asio::awaitable<result<std::size_t>> sweep(std::function<bool(const std::string&)>) override {
    co_return std::size_t{0};
  }
  asio::awaitable<void> shutdown() override { co_return; }
  std::size_t live_count() const override { return 0; }

  std::shared_ptr<backend_counts> counts = std::make_shared<backend_counts>();
  int fail_next = 0;
  bool says_ready = true;

 private:
  asio::any_io_executor executor_;
};

struct WarmPool : ::testing::Test {
  asio::io_context io;
  testing::fake_clock clock;
  std::shared_ptr<fake_backend> backend = std::make_shared<fake_backend>(io.get_executor());

  std::shared_ptr<warm_pool> make(std::size_t size) {
    pool_config config;
    config.size = size;
    config.max_size = size;
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
  std::optional<result<sandbox_lease>> lease;
  asio::co_spawn(
      io, [&]() -> asio::awaitable<void> { lease = co_await pool->claim(); }, [](std::exception_ptr) {});
  settle();
  ASSERT_TRUE(lease && *lease);
  EXPECT_TRUE((*lease)->warm);
  EXPECT_EQ(pool->stats().warm_claims, 1u);
  advance(10ms);  // the replacement starts a moment after the claim
  EXPECT_EQ(backend->counts->starts, 2);
  EXPECT_EQ(pool->stats().ready, 1u);
  lease->value().channel.reset();
  shut(pool);
}

}  // namespace
}  // namespace harness::execution
