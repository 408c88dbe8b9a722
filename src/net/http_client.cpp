// The awaitable face of the curl loop: fetch() and open() hand a transfer to the
// curl loop's thread and suspend until it posts the outcome back; a response
// stream's read() takes what the curl loop has buffered, or waits for more.
#include "harness/net/http_client.hpp"

#include <boost/asio/async_result.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "curl_loop.hpp"
#include "harness/core/errors.hpp"
#include "transfer.hpp"

namespace harness::net {
namespace asio = boost::asio;
using detail::held_handler;
using detail::stream_state;
using detail::transfer;

std::optional<std::string> response_head::header(std::string_view name) const {
  std::optional<std::string> out;
  for (const auto& [n, v] : headers) {
    if (n == name) out = v;
  }
  return out;
}

std::vector<std::string> response_head::header_values(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [n, v] : headers) {
    if (n == name) out.push_back(v);
  }
  return out;
}

namespace {

// The awaiting coroutine was cancelled: the curl loop aborts the transfer, which
// then completes with cancelled.
void abort_on_cancel(asio::cancellation_slot slot, const std::shared_ptr<curl_loop>& e,
                     const std::shared_ptr<transfer>& t) {
  if (!slot.is_connected()) return;
  slot.assign([weak_e = std::weak_ptr<curl_loop>(e), weak_t = std::weak_ptr<transfer>(t)](asio::cancellation_type) {
    auto target = weak_t.lock();
    auto owner = weak_e.lock();
    if (target && owner) owner->abort(target);
  });
}

class stream_impl final : public response_stream {
 public:
  stream_impl(std::shared_ptr<curl_loop> e, std::shared_ptr<transfer> t, std::shared_ptr<stream_state> s)
      : loop_(std::move(e)), transfer_(std::move(t)), state_(std::move(s)), head_(transfer_->head) {}

  ~stream_impl() override { loop_->abort(transfer_); }

  const response_head& head() const override { return head_; }

  void cancel() override { loop_->abort(transfer_); }

  asio::awaitable<result<std::string>> read() override {
    return asio::async_initiate<const asio::use_awaitable_t<>&, void(result<std::string>)>(
        [this](auto handler) { start_read(held_handler<std::string>(std::move(handler))); }, asio::use_awaitable);
  }

 private:
  void start_read(held_handler<std::string> reader) {
    std::unique_lock lock(state_->mutex);
    if (!state_->unread.empty()) {
      std::string piece = std::move(state_->unread);
      state_->unread.clear();
      const bool resume = state_->paused;
      state_->paused = false;
      lock.unlock();
      if (resume) loop_->resume(transfer_);
      std::move(reader).complete(std::move(piece));
      return;
    }
    if (state_->ended) {
      auto failure = state_->failure;
      lock.unlock();
      if (failure) {
        std::move(reader).complete(std::move(*failure));
      } else {
        std::move(reader).complete(std::string());
      }
      return;
    }
    // The slot's handler goes in before the reader is published, under the
    // lock: the curl loop cannot complete (and clear the slot) in between.
    auto slot = reader.slot();
    if (slot.is_connected()) {
      slot.assign([weak = std::weak_ptr<stream_state>(state_)](asio::cancellation_type) {
        auto s = weak.lock();
        if (!s) return;
        std::optional<held_handler<std::string>> waiting;
        {
          std::lock_guard guard(s->mutex);
          waiting = std::move(s->reader);
          s->reader.reset();
        }
        if (waiting) std::move(*waiting).complete(make_error(core::errc::cancelled, "the read was cancelled"));
      });
    }
    state_->reader.emplace(std::move(reader));
  }

  std::shared_ptr<curl_loop> loop_;
  std::shared_ptr<transfer> transfer_;
  std::shared_ptr<stream_state> state_;
  response_head head_;  // a copy: the curl loop's thread owns the transfer's
};

class client_impl final : public http_client, public std::enable_shared_from_this<client_impl> {
 public:
  client_impl(std::shared_ptr<curl_loop> e, const client_options& options)
      : loop_(std::move(e)), lane_(std::make_shared<detail::lane>()) {
    lane_->options = options;
  }

  asio::awaitable<result<response>> fetch(request r) override {
    // The client, and so the curl loop, live while a request of theirs is awaited.
    auto self = shared_from_this();
    auto t = make_transfer(std::move(r), false);
    // Named, not a temporary in the co_await expression: GCC 12 would destroy its captures twice.
    auto initiate = [this, t](auto handler) {
      t->on_fetched.emplace(std::move(handler));
      abort_on_cancel(t->on_fetched->slot(), loop_, t);
      loop_->submit(t);
    };
    co_return co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(result<response>)>(
        std::move(initiate), asio::use_awaitable);
  }

  asio::awaitable<result<std::unique_ptr<response_stream>>> open(request r) override {
    auto self = shared_from_this();  // see fetch()
    auto t = make_transfer(std::move(r), true);
    auto initiate = [this, t](auto handler) {  // named: see fetch()
      t->on_head.emplace(std::move(handler));
      abort_on_cancel(t->on_head->slot(), loop_, t);
      loop_->submit(t);
    };
    auto opened =
        co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(result<std::shared_ptr<stream_state>>)>(
            std::move(initiate), asio::use_awaitable);
    if (!opened) co_return opened.error();
    // The head is complete and the curl loop's thread no longer writes it.
    co_return std::unique_ptr<response_stream>(std::make_unique<stream_impl>(loop_, t, *opened));
  }

 private:
  std::shared_ptr<transfer> make_transfer(request r, bool streaming) {
    auto t = std::make_shared<transfer>();
    t->deadline = core::real_clock().steady_now() + r.timeout;  // curl's clock: see curl_loop.hpp
    t->req = std::move(r);
    t->streaming = streaming;
    t->owner = lane_;
    t->stream_buffer_bytes = loop_->options().stream_buffer_bytes;
    if (streaming) t->stream = std::make_shared<stream_state>();
    return t;
  }

  std::shared_ptr<curl_loop> loop_;
  std::shared_ptr<detail::lane> lane_;
};

}  // namespace

std::shared_ptr<http_client> create_http_client(std::shared_ptr<curl_loop> e, const client_options& options) {
  return std::make_shared<client_impl>(std::move(e), options);
}

}  // namespace harness::net
