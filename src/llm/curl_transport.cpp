// libcurl under Asio: one multi handle owned by one transfer thread. The I/O
// thread only enqueues a transfer and later receives its completion as a
// posted handler; all curl calls happen on the transfer thread, so curl's
// non-thread-safe handles need no locking and a slow DNS lookup, TLS handshake
// or large body never stalls the I/O thread. (Driving the multi handle from
// the io_context's own reactor would save the thread but means sharing file
// descriptors that curl opens and closes with epoll; one thread is simpler
// and plenty for a handful of concurrent LLM calls.)
#include <atomic>
#include <cctype>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <curl/curl.h>
#include <fmt/format.h>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/version.hpp"
#include "harness/llm/errors.hpp"
#include "harness/llm/http_transport.hpp"

namespace harness::llm {
namespace {

namespace asio = boost::asio;

struct transfer {
  http_request request;
  // The timeout counts from here: time spent waiting for a slot is part of it.
  std::chrono::steady_clock::time_point enqueued = std::chrono::steady_clock::now();
  // Called exactly once, from whichever thread finishes the transfer.
  std::function<void(result<http_response>)> done;
  std::atomic<bool> cancelled{false};
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  http_response response;
  bool too_large = false;
  std::size_t max_bytes = 0;
  char error_buffer[CURL_ERROR_SIZE] = {};

  ~transfer() {
    if (easy) curl_easy_cleanup(easy);
    if (headers) curl_slist_free_all(headers);
  }
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  std::size_t n = size * count;
  if (t->response.body.size() + n > t->max_bytes) {
    t->too_large = true;
    return 0;  // makes curl fail the transfer with CURLE_WRITE_ERROR
  }
  t->response.body.append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  std::size_t n = size * count;
  std::string_view line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {
    t->response.headers.clear();  // a new response (after 100 Continue or a retried connection)
    return n;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string name(line.substr(0, colon));
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
    value.remove_suffix(1);
  t->response.headers[std::move(name)] = std::string(value);
  return n;
}

error cancelled_error() {
  return make_error(core::errc::cancelled, "the LLM call was cancelled");
}

class curl_engine {
 public:
  explicit curl_engine(curl_transport_options options) : options_(std::move(options)) {
    static std::once_flag global_init;
    std::call_once(global_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    multi_ = curl_multi_init();
    if (!multi_) throw std::runtime_error("curl_multi_init failed");
    thread_ = std::thread([this] { run(); });
  }

  ~curl_engine() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    curl_multi_wakeup(multi_);
    thread_.join();
    curl_multi_cleanup(multi_);
  }

  void submit(std::shared_ptr<transfer> t) {
    {
      std::unique_lock lock(mutex_);
      if (stopping_ || queue_.size() >= options_.max_queued) {
        bool stopping = stopping_;
        lock.unlock();
        if (stopping) {
          t->done(make_error(core::errc::cancelled, "the LLM transport is shutting down"));
        } else {
          t->done(make_error(llm::errc::busy,
                             fmt::format("too many LLM calls waiting ({} queued)", options_.max_queued),
                             "raise LLM_MAX_CONCURRENT or run fewer tasks at once"));
        }
        return;
      }
      queue_.push_back(std::move(t));
    }
    curl_multi_wakeup(multi_);
  }

  // Thread-safe: makes the transfer thread look at cancellation flags now.
  void wake() { curl_multi_wakeup(multi_); }

 private:
  void run() {
    while (true) {
      std::vector<std::shared_ptr<transfer>> starting;
      std::vector<std::shared_ptr<transfer>> dropped;
      {
        std::lock_guard lock(mutex_);
        if (stopping_) break;
        for (auto it = queue_.begin(); it != queue_.end();) {
          if ((*it)->cancelled || time_left(**it) <= std::chrono::milliseconds(0)) {
            dropped.push_back(std::move(*it));
            it = queue_.erase(it);
          } else {
            ++it;
          }
        }
        while (!queue_.empty() && active_.size() + starting.size() < options_.max_concurrent) {
          starting.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
      }
      for (auto& t : dropped) t->done(t->cancelled ? cancelled_error() : queue_timeout(*t));
      for (auto& t : starting) {
        if (auto st = begin(*t); !st) {
          t->done(st.error());
        } else {
          active_.push_back(std::move(t));
        }
      }
      for (auto it = active_.begin(); it != active_.end();) {
        if ((*it)->cancelled) {
          auto t = std::move(*it);
          it = active_.erase(it);
          curl_multi_remove_handle(multi_, t->easy);  // closes the connection: the server sees the abort
          t->done(cancelled_error());
        } else {
          ++it;
        }
      }
      int running = 0;
      curl_multi_perform(multi_, &running);
      int left = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
        if (msg->msg != CURLMSG_DONE) continue;
        CURL* easy = msg->easy_handle;
        CURLcode code = msg->data.result;
        curl_multi_remove_handle(multi_, easy);
        for (auto it = active_.begin(); it != active_.end(); ++it) {
          if ((*it)->easy != easy) continue;
          auto t = std::move(*it);
          active_.erase(it);
          t->done(outcome(*t, code));
          break;
        }
      }
      // Sleeps until a socket is ready, curl's own timer fires, or wake().
      curl_multi_poll(multi_, nullptr, 0, 1000, nullptr);
    }
    std::vector<std::shared_ptr<transfer>> rest;
    {
      std::lock_guard lock(mutex_);
      rest.assign(queue_.begin(), queue_.end());
      queue_.clear();
    }
    for (auto& t : active_) {
      curl_multi_remove_handle(multi_, t->easy);
      rest.push_back(std::move(t));
    }
    active_.clear();
    for (auto& t : rest) t->done(make_error(core::errc::cancelled, "the LLM transport shut down"));
  }

  static std::chrono::milliseconds time_left(const transfer& t) {
    auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t.enqueued);
    return t.request.timeout - waited;
  }

  error queue_timeout(const transfer& t) const {
    return make_error(llm::errc::timeout,
                      fmt::format("the call to {} waited {} ms for one of the {} LLM connection slots and timed out",
                                  t.request.url, t.request.timeout.count(), options_.max_concurrent),
                      "raise LLM_MAX_CONCURRENT or run fewer tasks at once");
  }

  status begin(transfer& t) {
    auto left = time_left(t);
    if (left <= std::chrono::milliseconds(0)) return queue_timeout(t);
    for (const auto& [name, value] : t.request.headers) {
      if ((name + value).find_first_of("\r\n") != std::string::npos) {
        // The value is not echoed: it may be the key.
        return make_error(core::errc::invalid_setting, fmt::format("HTTP header '{}' contains a line break", name),
                          "check LLM_API_KEY and the other LLM_* settings for stray newlines");
      }
      t.headers = curl_slist_append(t.headers, (name + ": " + value).c_str());
    }
    t.headers = curl_slist_append(t.headers, "Expect:");  // no 100-continue round trip
    t.easy = curl_easy_init();
    if (!t.easy || !t.headers) return make_error(llm::errc::transport, "libcurl could not allocate a transfer");
    static const std::string user_agent = std::string("mcp-harness/") + harness::core::version();
    t.max_bytes = options_.max_response_bytes;
    CURL* e = t.easy;
    curl_easy_setopt(e, CURLOPT_URL, t.request.url.c_str());
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);  // only ever the configured URL
    curl_easy_setopt(e, CURLOPT_PROXY, options_.proxy.c_str());
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, t.request.body.data());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t.request.body.size()));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t.headers);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(left.count()));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(e, CURLOPT_USERAGENT, user_agent.c_str());
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t.error_buffer);
    if (curl_multi_add_handle(multi_, e) != CURLM_OK) {
      return make_error(llm::errc::transport, "libcurl refused the transfer");
    }
    return {};
  }

  result<http_response> outcome(transfer& t, CURLcode code) {
    const std::string& url = t.request.url;  // validated at config load: no credentials in it
    if (code == CURLE_OK) {
      long status = 0;
      curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
      t.response.status = status;
      return std::move(t.response);
    }
    std::string detail = t.error_buffer[0] ? t.error_buffer : curl_easy_strerror(code);
    if (code == CURLE_OPERATION_TIMEDOUT) {
      return make_error(llm::errc::timeout,
                        fmt::format("no complete answer from {} within {} ms", url, t.request.timeout.count()),
                        "raise LLM_TIMEOUT_MS for slow models, or check that the server is up");
    }
    if (code == CURLE_WRITE_ERROR && t.too_large) {
      return make_error(llm::errc::response_too_large,
                        fmt::format("the answer from {} exceeded {} bytes", url, options_.max_response_bytes),
                        "lower LLM_MAX_TOKENS");
    }
    return make_error(llm::errc::connection_failed, fmt::format("could not talk to the LLM at {}: {}", url, detail),
                      "check LLM_BASE_URL and that the server is reachable");
  }

  curl_transport_options options_;
  CURLM* multi_ = nullptr;
  std::mutex mutex_;
  std::deque<std::shared_ptr<transfer>> queue_;    // guarded by mutex_
  bool stopping_ = false;                          // guarded by mutex_
  std::vector<std::shared_ptr<transfer>> active_;  // transfer thread only
  std::thread thread_;
};

// Bridges the transfer thread back to the awaiting coroutine: the completion
// is posted to the handler's executor (keeping it alive meanwhile), and the
// handler's cancellation slot flags the transfer.
template <class Handler>
void start_transfer(const std::shared_ptr<curl_engine>& engine, Handler handler, http_request request) {
  auto executor = asio::prefer(asio::get_associated_executor(handler), asio::execution::outstanding_work.tracked);
  auto slot = asio::get_associated_cancellation_slot(handler);
  struct op_state {
    Handler handler;
    decltype(executor) work;
    asio::cancellation_slot slot;
  };
  auto state = std::make_shared<op_state>(op_state{std::move(handler), executor, slot});
  auto t = std::make_shared<transfer>();
  t->request = std::move(request);
  t->done = [state](result<http_response> r) {
    asio::post(state->work, [state, r = std::move(r)]() mutable {
      if (state->slot.is_connected()) state->slot.clear();
      auto h = std::move(state->handler);
      std::move(h)(std::move(r));
    });
  };
  if (slot.is_connected()) {
    slot.assign(
        [weak_t = std::weak_ptr<transfer>(t), weak_e = std::weak_ptr<curl_engine>(engine)](asio::cancellation_type) {
          auto target = weak_t.lock();
          auto e = weak_e.lock();
          if (!target || !e) return;
          target->cancelled = true;
          e->wake();
        });
  }
  engine->submit(std::move(t));
}

class curl_transport_impl final : public http_transport {
 public:
  explicit curl_transport_impl(const curl_transport_options& options)
      : engine_(std::make_shared<curl_engine>(options)) {}

  asio::awaitable<result<http_response>> send(http_request request) override {
    return asio::async_initiate<const asio::use_awaitable_t<>&, void(result<http_response>)>(
        [engine = engine_](auto handler, http_request r) { start_transfer(engine, std::move(handler), std::move(r)); },
        asio::use_awaitable, std::move(request));
  }

 private:
  std::shared_ptr<curl_engine> engine_;
};

}  // namespace

std::shared_ptr<http_transport> create_curl_transport(const curl_transport_options& options) {
  return std::make_shared<curl_transport_impl>(options);
}

}  // namespace harness::llm
