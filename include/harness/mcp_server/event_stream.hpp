// The Server-Sent Events of one request answered over SSE (its progress
// notifications, then its answer), kept by the MCP session so that a client
// whose connection dropped can take the stream up again: Streamable HTTP's
// resumability (GET with Last-Event-ID). Event ids are "<stream>-<seq>": the
// stream's number in its session, then the event's number in the stream, so
// a resumed stream never replays another stream's events.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/async_signal.hpp"

namespace harness::mcp_server {

struct event_id {
  std::uint64_t stream = 0;
  std::uint64_t seq = 0;  // 0 is the priming event, which carries no message
};

// "<stream>-<seq>", both decimal; nullopt for anything else.
std::optional<event_id> parse_event_id(std::string_view text);

// One stream's events. Not thread-safe: use it on the session's executor.
class event_stream {
 public:
  // Events kept for a resumption. Progress notifications past this are
  // dropped oldest first; the answer, always the last event, is never dropped.
  static constexpr std::size_t max_kept = 64;

  // finished_at() is read from `clock`, which must outlive the stream.
  event_stream(const boost::asio::any_io_executor& executor, core::clock& clock, std::uint64_t number);

  std::uint64_t number() const { return number_; }
  // Appends one message as an event; ignored once finished.
  void push(const nlohmann::json& message);
  // No more events: readers end once they have read what is kept.
  void finish();
  bool finished() const { return finished_; }
  core::steady_time finished_at() const { return finished_at_; }

  // The first event after `seq` (a reader's position: 0 reads from the
  // start), waiting while there is none yet; nullopt once the stream is
  // finished and read to its end. Events dropped meanwhile are skipped.
  struct event {
    std::uint64_t seq;
    std::string text;  // the whole SSE event, ready to send
  };
  boost::asio::awaitable<std::optional<event>> next_after(std::uint64_t seq);

  // The priming event a new stream starts with: its id and the client's
  // reconnection delay (`retry`), no data.
  std::string priming_event() const;

 private:
  core::clock& clock_;
  std::uint64_t number_;
  std::uint64_t last_seq_ = 0;
  std::deque<event> kept_;
  bool finished_ = false;
  core::steady_time finished_at_{};
  core::async_signal wake_;
};

// The streams of one session, numbered from 1. Finished streams are kept for
// resumption a while (`retain`, at most `max_finished` of them).
class event_stream_table {
 public:
  static constexpr std::size_t max_finished = 16;
  static constexpr std::chrono::minutes retain{5};

  event_stream_table(boost::asio::any_io_executor executor, core::clock& clock)
      : executor_(std::move(executor)), clock_(clock) {}

  std::shared_ptr<event_stream> open();
  // The stream, while it is kept; else null.
  std::shared_ptr<event_stream> find(std::uint64_t number) const;
  std::size_t size() const { return streams_.size(); }

 private:
  void prune();

  boost::asio::any_io_executor executor_;
  core::clock& clock_;
  std::uint64_t next_ = 1;
  std::map<std::uint64_t, std::shared_ptr<event_stream>> streams_;
};

}  // namespace harness::mcp_server
