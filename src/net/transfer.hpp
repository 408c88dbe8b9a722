// One HTTP exchange as the curl loop runs it: the curl easy handle, what has
// arrived so far, and how the awaiting side learns of it. Everything here but
// stream_state is touched only on the curl loop's thread.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include <curl/curl.h>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/net/http_client.hpp"

namespace harness::net::detail {

// A completion handler held on another thread until its result is known.
// Holding it counts as work on its executor, so the awaiting io_context keeps
// running meanwhile; complete() posts the result there (never runs it
// inline), and clears the cancellation slot the operation installed on the
// way, so a handler for a finished operation is never left behind in it.
template <class T>
class held_handler {
 public:
  using handler_type = boost::asio::any_completion_handler<void(result<T>)>;
  template <class Handler>
  explicit held_handler(Handler&& h)
      : work_(boost::asio::prefer(boost::asio::get_associated_executor(h),
                                  boost::asio::execution::outstanding_work.tracked)),
        slot_(boost::asio::get_associated_cancellation_slot(h)),
        handler_(std::forward<Handler>(h)) {}

  // The slot of the awaiting operation (not connected when it cannot be cancelled).
  boost::asio::cancellation_slot slot() const { return slot_; }

  void complete(result<T> value) && {
    auto work = std::move(work_);
    boost::asio::post(work, [h = std::move(handler_), slot = slot_, v = std::move(value)]() mutable {
      if (slot.is_connected()) slot.clear();
      std::move(h)(std::move(v));
    });
  }

 private:
  boost::asio::any_io_executor work_;
  boost::asio::cancellation_slot slot_;
  handler_type handler_;
};

struct transfer;

// A client's share of the curl loop: its concurrency limit and waiting line.
struct lane {
  client_options options;
  std::size_t running = 0;
  std::deque<std::shared_ptr<transfer>> waiting;
};

// The body of a streamed response, handed from the curl loop's thread to the
// reader's. Guarded by `mutex`: the curl loop appends, the reader takes.
struct stream_state {
  std::mutex mutex;
  std::string unread;
  bool ended = false;
  std::optional<error> failure;  // set with ended when the transfer failed
  bool paused = false;           // the curl loop paused the transfer: the reader resumes it after taking data
  std::optional<held_handler<std::string>> reader;  // a read waiting for data
};

struct transfer {
  transfer() = default;
  ~transfer();
  transfer(const transfer&) = delete;
  transfer& operator=(const transfer&) = delete;

  request req;
  bool streaming = false;
  std::shared_ptr<lane> owner;
  core::steady_time deadline;  // of the whole fetch, or of the head of a stream

  CURL* easy = nullptr;
  curl_slist* header_lines = nullptr;
  char error_buffer[CURL_ERROR_SIZE] = {};
  enum class phase { queued, running, finished } state = phase::queued;
  bool timed_out = false;
  bool too_large = false;
  std::string refused_address;  // a public_only request's connection went to this non-public address

  response_head head;
  bool head_done = false;
  std::string body;                      // fetch only
  std::shared_ptr<stream_state> stream;  // open only
  std::size_t stream_buffer_bytes = 256 * 1024;

  // The deadline's timer, on the curl loop's thread only (made when the
  // transfer is queued, destroyed when it finishes).
  std::unique_ptr<core::timer> deadline_timer;

  // Exactly one is set, until it has been completed.
  std::optional<held_handler<response>> on_fetched;
  std::optional<held_handler<std::shared_ptr<stream_state>>> on_head;
};

}  // namespace harness::net::detail
