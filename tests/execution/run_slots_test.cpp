// The per-user and per-key cap of one-shot sandboxes: a request past its
// share waits for a slot, and is refused (too_many_running) when none frees
// in time. Driven on one io_context; the waits end by a slot being freed or
// by a zero wait, never by the clock racing the test.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "harness/execution/errors.hpp"
#include "run_slots.hpp"
#include "support/run_sync.hpp"

namespace harness::execution {
namespace {

using slot_ptr = std::unique_ptr<run_slots::slot>;

slot_ptr take(boost::asio::io_context& io, run_slots& slots, const std::string& user, const std::string& key) {
  auto got = harness::testing::run_sync(io, slots.acquire(user, key));
  EXPECT_TRUE(got) << got.error().describe();
  return got ? std::move(*got) : nullptr;
}

TEST(RunSlots, AUserPastItsShareIsRefusedWhenNoneFrees) {
  boost::asio::io_context io;
  run_slots slots(io.get_executor(), core::real_clock(),
                  {.per_user = 2, .per_key = 10, .wait = std::chrono::milliseconds(0)});
  auto a = take(io, slots, "alice", "");
  auto b = take(io, slots, "alice", "");
  auto refused = harness::testing::run_sync(io, slots.acquire("alice", ""));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, execution::errc::too_many_running);
  EXPECT_EQ(refused.error().code.http_status(), 429u);
  EXPECT_NE(refused.error().hint.find("SANDBOX_MAX_RUNNING_PER_USER"), std::string::npos);
  // Another user has a share of their own; a freed slot is free again.
  EXPECT_TRUE(take(io, slots, "bob", ""));
  a.reset();
  EXPECT_TRUE(take(io, slots, "alice", ""));
  EXPECT_EQ(slots.running_of_user("alice"), 1u);
}

TEST(RunSlots, OneKeyActingForManyUsersHasOneShare) {
  boost::asio::io_context io;
  run_slots slots(io.get_executor(), core::real_clock(),
                  {.per_user = 10, .per_key = 2, .wait = std::chrono::milliseconds(0)});
  auto a = take(io, slots, "u1", "key_1");
  auto b = take(io, slots, "u2", "key_1");
  auto refused = harness::testing::run_sync(io, slots.acquire("u3", "key_1"));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().hint.find("SANDBOX_MAX_RUNNING_PER_KEY"), std::string::npos);
  EXPECT_TRUE(take(io, slots, "u3", "key_2"));
}

TEST(RunSlots, AWaitingRequestGetsTheSlotThatFrees) {
  boost::asio::io_context io;
  run_slots slots(io.get_executor(), core::real_clock(),
                  {.per_user = 1, .per_key = 10, .wait = std::chrono::minutes(5)});
  auto first = take(io, slots, "alice", "");
  std::optional<result<slot_ptr>> second;
  boost::asio::co_spawn(
      io, [&]() -> boost::asio::awaitable<void> { second = co_await slots.acquire("alice", ""); },
      boost::asio::detached);
  io.poll();
  EXPECT_FALSE(second.has_value());  // waiting: the share is taken
  first.reset();                     // the first block answered
  io.restart();
  while (!second) io.run_one();
  ASSERT_TRUE(*second) << second->error().describe();
  EXPECT_EQ(slots.running_of_user("alice"), 1u);
}

}  // namespace
}  // namespace harness::execution
