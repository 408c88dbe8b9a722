// A request's resumable SSE stream: event ids, reading from a position,
// waiting for the next event, what is kept, and the session's table of them.
#include "harness/mcp_server/event_stream.hpp"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "support/run_sync.hpp"

namespace harness::mcp_server {
namespace {

using json = nlohmann::json;
namespace asio = boost::asio;

// Every event after `seq` until the stream ends.
asio::awaitable<std::vector<event_stream::event>> read_all(std::shared_ptr<event_stream> stream, std::uint64_t seq) {
  std::vector<event_stream::event> out;
  while (auto e = co_await stream->next_after(seq)) {
    seq = e->seq;
    out.push_back(std::move(*e));
  }
  co_return out;
}

TEST(EventId, ParsesStreamAndSequence) {
  auto id = parse_event_id("3-17");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->stream, 3u);
  EXPECT_EQ(id->seq, 17u);
  EXPECT_EQ(parse_event_id("1-0")->seq, 0u);
}

TEST(EventId, RefusesAnythingElse) {
  for (const char* bad : {"", "-", "1", "1-", "-1", "a-1", "1-b", "1-2-3", "1 -2", "+1-2", "1-0x2",
                          "99999999999999999999-1", "1-99999999999999999999"}) {
    EXPECT_FALSE(parse_event_id(bad).has_value()) << bad;
  }
}

TEST(EventStream, EventsCarryTheirIdsAndMessages) {
  asio::io_context io;
  auto stream = std::make_shared<event_stream>(io.get_executor(), core::real_clock(), 4);
  EXPECT_EQ(stream->priming_event(), "id: 4-0\nretry: 1000\ndata:\n\n");
  stream->push({{"a", 1}});
  stream->push({{"b", "x\ny"}});
  stream->finish();
  auto events = harness::testing::run_sync(io, read_all(stream, 0));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].seq, 1u);
  EXPECT_EQ(events[0].text, "id: 4-1\nevent: message\ndata: {\"a\":1}\n\n");
  EXPECT_EQ(events[1].text, "id: 4-2\nevent: message\ndata: {\"b\":\"x\\ny\"}\n\n");  // one data line
}

TEST(EventStream, AReaderResumesAfterTheEventItSaw) {
  asio::io_context io;
  auto stream = std::make_shared<event_stream>(io.get_executor(), core::real_clock(), 1);
  for (int i = 1; i <= 3; ++i) stream->push({{"n", i}});
  stream->finish();
  auto rest = harness::testing::run_sync(io, read_all(stream, 2));
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].seq, 3u);
  EXPECT_TRUE(harness::testing::run_sync(io, read_all(stream, 3)).empty());
  EXPECT_TRUE(harness::testing::run_sync(io, read_all(stream, 50)).empty());
}

TEST(EventStream, AReaderWaitsForEventsStillToCome) {
  asio::io_context io;
  auto stream = std::make_shared<event_stream>(io.get_executor(), core::real_clock(), 1);
  std::vector<event_stream::event> got;
  bool done = false;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        got = co_await read_all(stream, 0);
        done = true;
      },
      asio::detached);
  io.poll();
  EXPECT_FALSE(done);
  stream->push({{"n", 1}});
  io.poll();
  EXPECT_FALSE(done);
  EXPECT_EQ(got.size(), 0u);  // read_all returns at the end only
  stream->push({{"n", 2}});
  stream->finish();
  stream->push({{"n", 3}});  // after finish: dropped
  io.run();
  EXPECT_TRUE(done);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].seq, 2u);
}

TEST(EventStream, KeepsTheNewestEventsAndSkipsWhatWasDropped) {
  asio::io_context io;
  auto stream = std::make_shared<event_stream>(io.get_executor(), core::real_clock(), 1);
  const std::size_t pushed = event_stream::max_kept + 10;
  for (std::size_t i = 1; i <= pushed; ++i) stream->push({{"n", i}});
  stream->finish();
  auto events = harness::testing::run_sync(io, read_all(stream, 1));
  ASSERT_EQ(events.size(), event_stream::max_kept);
  EXPECT_EQ(events.front().seq, 11u);
  EXPECT_EQ(events.back().seq, pushed);  // the last event (the answer) is kept
}

TEST(EventStreamTable, NumbersStreamsAndFindsThem) {
  asio::io_context io;
  event_stream_table table(io.get_executor(), core::real_clock());
  auto first = table.open();
  auto second = table.open();
  EXPECT_EQ(first->number(), 1u);
  EXPECT_EQ(second->number(), 2u);
  EXPECT_EQ(table.find(2), second);
  EXPECT_EQ(table.find(3), nullptr);
  EXPECT_EQ(table.find(0), nullptr);
}

TEST(EventStreamTable, ForgetsTheOldestFinishedStreamsButNoRunningOne) {
  asio::io_context io;
  event_stream_table table(io.get_executor(), core::real_clock());
  auto running = table.open();
  for (std::size_t i = 0; i < event_stream_table::max_finished + 5; ++i) table.open()->finish();
  table.open();  // pruning happens as streams open
  EXPECT_EQ(table.find(running->number()), running);
  EXPECT_EQ(table.find(2), nullptr);  // the oldest finished went first
  EXPECT_LE(table.size(), event_stream_table::max_finished + 2);
  EXPECT_NE(table.find(event_stream_table::max_finished + 6), nullptr);  // the newest finished is kept
}

}  // namespace
}  // namespace harness::mcp_server
