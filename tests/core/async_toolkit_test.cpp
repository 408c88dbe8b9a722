// The async toolkit: deadlines, when_all, logged spawns, signals and counters.
// Time is the fake clock's, which stands still: deadlines are either now (the
// timer wins) or an hour away (the operation wins), and nothing depends on
// how fast the machine is.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/async_event.hpp"
#include "harness/core/async_signal.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/when_all.hpp"
#include "harness/core/with_deadline.hpp"
#include "support/captured_log.hpp"
#include "support/fake_clock.hpp"

namespace harness::core {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

// Runs `make()`'s coroutine on `io` to the end and returns what it returned.
template <class F>
auto run(asio::io_context& io, F make) {
  using T = typename std::invoke_result_t<F>::value_type;
  std::optional<T> out;
  std::exception_ptr failure;
  asio::co_spawn(io, make, [&](std::exception_ptr e, T value) {
    failure = e;
    out = std::move(value);
  });
  io.run();
  io.restart();
  if (failure) std::rethrow_exception(failure);
  return std::move(*out);
}

// Waits on a timer that would take an hour; records how the wait ended.
asio::awaitable<int> wait_an_hour(std::shared_ptr<boost::system::error_code> seen) {
  asio::steady_timer timer(co_await asio::this_coro::executor, 1h);
  auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
  *seen = ec;
  co_return 1;
}

TEST(WithDeadline, ReturnsTheValueOfAnOperationThatEndsInTime) {
  asio::io_context io;
  testing::fake_clock clock;
  auto got = run(io, [&]() -> asio::awaitable<std::optional<int>> {
    auto op = []() -> asio::awaitable<int> { co_return 42; }();
    auto out = co_await with_deadline(clock, std::move(op), 1h);
    co_return out;
  });
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, 42);
}

TEST(WithDeadline, TimesOutAndCancelsTheOperation) {
  asio::io_context io;
  testing::fake_clock clock;
  auto seen = std::make_shared<boost::system::error_code>();
  auto got = run(io, [&, seen]() -> asio::awaitable<std::optional<int>> {
    auto op = wait_an_hour(seen);
    auto out = co_await with_deadline(clock, std::move(op), 0ms);
    co_return out;
  });
  EXPECT_FALSE(got.has_value());
  EXPECT_EQ(*seen, asio::error::operation_aborted);
}

TEST(WithDeadline, ADeadlineInThePastStillCancels) {
  asio::io_context io;
  testing::fake_clock clock;
  auto seen = std::make_shared<boost::system::error_code>();
  auto got = run(io, [&, seen]() -> asio::awaitable<std::optional<int>> {
    auto op = wait_an_hour(seen);
    auto out = co_await with_deadline(clock, std::move(op), clock.steady_now() - 1h);
    co_return out;
  });
  EXPECT_FALSE(got.has_value());
  EXPECT_EQ(*seen, asio::error::operation_aborted);
}

TEST(WithDeadline, PassesOnTheOperationsException) {
  asio::io_context io;
  testing::fake_clock clock;
  EXPECT_THROW(run(io,
                   [&]() -> asio::awaitable<std::optional<int>> {
                     auto op = []() -> asio::awaitable<int> {
                       throw std::runtime_error("broken");
                       co_return 0;
                     }();
                     auto out = co_await with_deadline(clock, std::move(op), 1h);
                     co_return out;
                   }),
               std::runtime_error);
}

TEST(WithDeadline, VoidOperationSaysWhetherItEndedInTime) {
  asio::io_context io;
  testing::fake_clock clock;
  auto seen = std::make_shared<boost::system::error_code>();
  auto in_time = run(io, [&]() -> asio::awaitable<bool> {
    auto op = []() -> asio::awaitable<void> { co_return; }();
    auto out = co_await with_deadline(clock, std::move(op), 1h);
    co_return out;
  });
  EXPECT_TRUE(in_time);
  auto late = run(io, [&, seen]() -> asio::awaitable<bool> {
    auto op = [](std::shared_ptr<boost::system::error_code> s) -> asio::awaitable<void> {
      co_await wait_an_hour(s);
    }(seen);
    auto out = co_await with_deadline(clock, std::move(op), 0ms);
    co_return out;
  });
  EXPECT_FALSE(late);
  EXPECT_EQ(*seen, asio::error::operation_aborted);
}

// An operation with an object-level cancel: it waits until `cancel` is set.
asio::awaitable<std::string> wait_for_cancel(async_event& cancel) {
  co_await cancel.wait();
  co_return "stopped";
}

TEST(WithDeadlineHook, CallsTheHookAtTheDeadlineAndReturnsTheValue) {
  asio::io_context io;
  testing::fake_clock clock;
  async_event cancel(io.get_executor());
  auto got = run(io, [&]() -> asio::awaitable<deadline_run<std::string>> {
    auto op = wait_for_cancel(cancel);
    auto out = co_await with_deadline(clock, std::move(op), clock.steady_now(), [&] { cancel.set(); });
    co_return out;
  });
  EXPECT_TRUE(got.expired);
  EXPECT_EQ(got.value, "stopped");
}

TEST(WithDeadlineHook, NeverCallsTheHookOfAnOperationThatEndedInTime) {
  asio::io_context io;
  testing::fake_clock clock;
  bool called = false;
  auto got = run(io, [&]() -> asio::awaitable<deadline_run<int>> {
    auto op = []() -> asio::awaitable<int> { co_return 7; }();
    auto out = co_await with_deadline(clock, std::move(op), clock.steady_now() + 1h, [&] { called = true; });
    co_return out;
  });
  io.run();
  EXPECT_FALSE(got.expired);
  EXPECT_EQ(got.value, 7);
  EXPECT_FALSE(called);
}

TEST(WithDeadlineHook, PassesOnTheOperationsException) {
  asio::io_context io;
  testing::fake_clock clock;
  EXPECT_THROW(run(io,
                   [&]() -> asio::awaitable<bool> {
                     auto op = []() -> asio::awaitable<void> {
                       throw std::runtime_error("broken");
                       co_return;
                     }();
                     auto out = co_await with_deadline(clock, std::move(op), clock.steady_now() + 1h, [] {});
                     co_return out;
                   }),
               std::runtime_error);
}

TEST(WhenAll, ReturnsValuesInTheOrderOfTheOperations) {
  asio::io_context io;
  testing::fake_clock clock;
  auto got = run(io, [&]() -> asio::awaitable<std::vector<std::string>> {
    // The first ends last: it waits for the event the last one sets.
    async_event last_ran(co_await asio::this_coro::executor);
    std::vector<asio::awaitable<std::string>> ops;
    ops.push_back([](async_event& e) -> asio::awaitable<std::string> {
      co_await e.wait();
      co_return "first";
    }(last_ran));
    ops.push_back([]() -> asio::awaitable<std::string> { co_return "second"; }());
    ops.push_back([](async_event& e) -> asio::awaitable<std::string> {
      e.set();
      co_return "third";
    }(last_ran));
    auto out = co_await when_all(std::move(ops));
    co_return out;
  });
  EXPECT_EQ(got, (std::vector<std::string>{"first", "second", "third"}));
}

TEST(WhenAll, WaitsForAllThenPassesOnTheFirstException) {
  asio::io_context io;
  testing::fake_clock clock;
  auto ended = std::make_shared<int>(0);
  EXPECT_THROW(run(io,
                   [ended]() -> asio::awaitable<int> {
                     std::vector<asio::awaitable<void>> ops;
                     for (int i = 0; i < 3; ++i) {
                       ops.push_back([](int n, std::shared_ptr<int> count) -> asio::awaitable<void> {
                         ++*count;
                         if (n == 1) throw std::logic_error("second failed");
                         co_return;
                       }(i, ended));
                     }
                     co_await when_all(std::move(ops));
                     co_return 0;
                   }),
               std::logic_error);
  EXPECT_EQ(*ended, 3);
}

TEST(WhenAll, NoOperationsReturnsAtOnce) {
  asio::io_context io;
  testing::fake_clock clock;
  auto got = run(io, [&]() -> asio::awaitable<std::size_t> {
    std::vector<asio::awaitable<int>> none;
    auto out = co_await when_all(std::move(none));
    co_return out.size();
  });
  EXPECT_EQ(got, 0u);
}

using harness::testing::captured_log;

bool contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines) {
    if (l.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(SpawnLogged, LogsAnExceptionUnderTheGivenName) {
  captured_log log;
  asio::io_context io;
  testing::fake_clock clock;
  spawn_logged(
      io.get_executor(),
      []() -> asio::awaitable<void> {
        throw std::runtime_error("disk on fire");
        co_return;
      },
      "test sweeper");
  io.run();
  EXPECT_TRUE(contains(log.lines(), "error test sweeper failed: disk on fire"))
      << ::testing::PrintToString(log.lines());
}

TEST(SpawnLogged, LogsAnErrorValueAndNothingForSuccess) {
  captured_log log;
  asio::io_context io;
  testing::fake_clock clock;
  auto failing = []() -> asio::awaitable<status> {
    co_return make_error(core::errc::internal_error, "the thing broke");
  }();
  spawn_logged(io.get_executor(), std::move(failing), "close session");
  auto fine = []() -> asio::awaitable<status> { co_return status{}; }();
  spawn_logged(io.get_executor(), std::move(fine), "quiet work");
  io.run();
  const auto lines = log.lines();
  EXPECT_TRUE(contains(lines, "warning close session failed: the thing broke [internal_error]"))
      << ::testing::PrintToString(lines);
  EXPECT_FALSE(contains(lines, "quiet work")) << ::testing::PrintToString(lines);
}

TEST(AsyncSignal, NotifyWakesTheWaitersOfThatMoment) {
  asio::io_context io;
  testing::fake_clock clock;
  async_signal signal(io.get_executor(), clock);
  std::vector<bool> woke;
  for (int i = 0; i < 2; ++i) {
    asio::co_spawn(
        io, [&]() -> asio::awaitable<void> { woke.push_back(co_await signal.wait_for(1h)); },
        [](std::exception_ptr) {});
  }
  while (signal.waiting() < 2) io.run_one();
  signal.notify_all();
  io.run();
  EXPECT_EQ(woke, (std::vector<bool>{true, true}));
  EXPECT_EQ(signal.waiting(), 0u);
}

TEST(AsyncSignal, ANotifyWithoutWaitersIsNotKept) {
  asio::io_context io;
  testing::fake_clock clock;
  async_signal signal(io.get_executor(), clock);
  signal.notify_all();
  auto woke = run(io, [&]() -> asio::awaitable<bool> {
    auto out = co_await signal.wait_for(0ms);
    co_return out;
  });
  EXPECT_FALSE(woke);
}

TEST(AsyncSignal, WaitUntilReportsTheDeadline) {
  asio::io_context io;
  testing::fake_clock clock;
  async_signal signal(io.get_executor(), clock);
  auto woke = run(io, [&]() -> asio::awaitable<bool> {
    auto out = co_await signal.wait_until(clock.steady_now() - 1s);
    co_return out;
  });
  EXPECT_FALSE(woke);
}

TEST(AsyncCounter, WaitZeroReturnsWhenTheLastPieceEnds) {
  asio::io_context io;
  testing::fake_clock clock;
  async_counter counter(io.get_executor(), clock);
  counter.add(2);
  bool zero = false;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        co_await counter.wait_zero();
        zero = true;
      },
      [](std::exception_ptr) {});
  io.poll();
  counter.done();
  io.poll();
  EXPECT_FALSE(zero);
  counter.done();
  io.run();
  EXPECT_TRUE(zero);
  EXPECT_EQ(counter.count(), 0u);
}

TEST(AsyncCounter, WaitZeroUntilGivesUpAtTheDeadline) {
  asio::io_context io;
  testing::fake_clock clock;
  async_counter counter(io.get_executor(), clock);
  counter.add();
  auto zero = run(io, [&]() -> asio::awaitable<bool> {
    auto out = co_await counter.wait_zero_until(clock.steady_now());
    co_return out;
  });
  EXPECT_FALSE(zero);
  EXPECT_EQ(counter.count(), 1u);
}

TEST(AsyncCounter, WaitZeroReturnsAtOnceWhenNothingRuns) {
  asio::io_context io;
  testing::fake_clock clock;
  async_counter counter(io.get_executor(), clock);
  auto done = run(io, [&]() -> asio::awaitable<bool> {
    co_await counter.wait_zero();
    co_return true;
  });
  EXPECT_TRUE(done);
}

TEST(AsyncEvent, WakesWaitersNowAndLater) {
  asio::io_context io;
  testing::fake_clock clock;
  async_event event(io.get_executor());
  int woke = 0;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        co_await event.wait();
        ++woke;
      },
      [](std::exception_ptr) {});
  io.poll();
  EXPECT_EQ(woke, 0);
  event.set();
  io.run();
  io.restart();
  EXPECT_EQ(woke, 1);
  auto again = run(io, [&]() -> asio::awaitable<bool> {
    co_await event.wait();
    co_return event.is_set();
  });
  EXPECT_TRUE(again);
}

}  // namespace
}  // namespace harness::core
