// io_deadline on a real loopback connection: a deadline that runs out
// cancels the pending read (and only then), one that is disarmed or moved
// later does not, one moved earlier wakes the timer sooner. What is checked
// is the order of events, never a duration: the deadline's timer (20 ms) and
// the peer's write (80 ms) are timers of the same io_context, which runs them
// in the order they expire; deadlines that must not run out are an hour.
#include "io_deadline.hpp"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <memory>
#include <optional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

namespace harness::http {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

class IoDeadline : public ::testing::Test {
 protected:
  IoDeadline() : server_(io_), client_(io_) {
    tcp::acceptor acceptor(io_, {asio::ip::make_address("127.0.0.1"), 0});
    client_.connect(acceptor.local_endpoint());
    acceptor.accept(server_);
  }

  // Reads on the server side until the read completes. A read still pending
  // after 10 s is ended by closing the socket (and then fails the test)
  // rather than hanging it.
  void read() {
    server_.async_read_some(asio::buffer(bytes_), [this](boost::system::error_code ec, std::size_t) {
      read_result_ = ec;
      io_.stop();  // the deadline's timer may still wait: the test is over
    });
    guard_.expires_after(10s);
    guard_.async_wait([this](boost::system::error_code ec) {
      if (!ec) server_.close();
    });
    io_.run();
  }

  // The client writes one byte after `delay`.
  void write_after(std::chrono::milliseconds delay) {
    peer_.expires_after(delay);
    peer_.async_wait([this](boost::system::error_code ec) {
      if (!ec) asio::write(client_, asio::buffer("x", 1));
    });
  }

  // The read was cancelled by the deadline, and the socket stays open: the
  // server can still answer 408.
  void expect_cancelled() {
    ASSERT_TRUE(read_result_);
    EXPECT_EQ(*read_result_, asio::error::operation_aborted);
    EXPECT_TRUE(deadline_.expired());
    EXPECT_TRUE(server_.is_open());
  }

  // The read got the client's byte: the deadline cancelled nothing.
  void expect_read_the_byte() {
    ASSERT_TRUE(read_result_);
    EXPECT_FALSE(*read_result_) << read_result_->message();
    EXPECT_FALSE(deadline_.expired());
  }

  asio::io_context io_;
  tcp::socket server_, client_;
  asio::steady_timer peer_{io_}, guard_{io_};
  std::array<char, 16> bytes_{};
  std::optional<boost::system::error_code> read_result_;
  io_deadline deadline_{server_, core::real_clock()};
};

TEST_F(IoDeadline, ADeadlineThatRunsOutCancelsThePendingRead) {
  deadline_.arm(20ms);
  read();
  expect_cancelled();
}

TEST_F(IoDeadline, ADisarmedDeadlineCancelsNothing) {
  deadline_.arm(20ms);
  deadline_.disarm();
  write_after(80ms);  // the timer wakes at 20 ms, finds no deadline, stops
  read();
  expect_read_the_byte();
}

TEST_F(IoDeadline, ADeadlineMovedLaterIsWaitedFor) {
  deadline_.arm(20ms);
  deadline_.disarm();
  deadline_.arm(1h);  // the timer still wakes at 20 ms, then sleeps again
  write_after(80ms);
  read();
  expect_read_the_byte();
}

TEST_F(IoDeadline, ADeadlineMovedEarlierWakesTheTimerSooner) {
  deadline_.arm(1h);
  deadline_.disarm();
  deadline_.arm(20ms);  // sooner than the timer's wake-up: it is moved up
  read();               // else the guard would end the read, closing the socket
  expect_cancelled();
}

TEST_F(IoDeadline, ManyArmsAndDisarmsLeaveTheLastDeadlineInForce) {
  for (int i = 0; i < 1000; ++i) {
    deadline_.arm(i % 2 ? 1h : 2h);
    deadline_.disarm();
  }
  deadline_.arm(20ms);
  read();
  expect_cancelled();
}

TEST_F(IoDeadline, ReArmingClearsAnExpiry) {
  deadline_.arm(20ms);
  read();
  ASSERT_TRUE(deadline_.expired());
  deadline_.arm(1h);
  EXPECT_FALSE(deadline_.expired());
}

TEST_F(IoDeadline, DestroyedWithAWaitPendingIsSafe) {
  auto deadline = std::make_unique<io_deadline>(server_, core::real_clock());
  deadline->arm(20ms);
  deadline.reset();  // its wait completes later, aborted, and touches nothing
  write_after(80ms);
  read();
  expect_read_the_byte();
}

}  // namespace
}  // namespace harness::http
