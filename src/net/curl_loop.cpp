#include "curl_loop.hpp"

#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

#include "easy_setup.hpp"
#include "harness/core/errors.hpp"
#include "harness/net/errors.hpp"
#include "harness/net/url.hpp"

namespace harness::net {
namespace asio = boost::asio;
using detail::transfer;

namespace {

std::vector<X509*> read_ca_file(const std::string& path) {
  std::vector<X509*> out;
  if (path.empty()) return out;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw std::runtime_error("TLS_EXTRA_CA_FILE: cannot read " + path);
  while (X509* cert = PEM_read_X509(file, nullptr, nullptr, nullptr)) out.push_back(cert);
  std::fclose(file);
  if (out.empty()) {
    throw std::runtime_error("TLS_EXTRA_CA_FILE: " + path + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  }
  return out;
}

}  // namespace

curl_loop::curl_loop(const curl_loop_options& options)
    : options_(options),
      extra_cas_(read_ca_file(options.extra_ca_file)),
      curl_timer_(clock_.make_timer(io_.get_executor())) {
  static std::once_flag global_init;
  std::call_once(global_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  multi_ = curl_multi_init();
  if (!multi_) throw std::runtime_error("curl_multi_init failed");
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &curl_loop::on_socket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &curl_loop::on_timer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  keep_running_.emplace(io_.get_executor());
  thread_ = std::thread([this] { io_.run(); });
}

curl_loop::~curl_loop() {
  stop();
  for (X509* cert : extra_cas_) X509_free(cert);
}

void curl_loop::stop() {
  std::lock_guard lock(stop_mutex_);
  if (!thread_.joinable()) return;
  stopped_ = true;
  asio::post(io_, [this] { shut_down(); });
  thread_.join();
}

void curl_loop::submit(std::shared_ptr<transfer> t) {
  if (stopped_) {
    // The thread is gone (or going): nothing would ever run the transfer.
    detail::deliver(*t, make_error(core::errc::cancelled, "the HTTP client has stopped"));
    return;
  }
  asio::post(io_, [this, t = std::move(t)]() mutable { enqueue(std::move(t)); });
}

void curl_loop::abort(std::shared_ptr<transfer> t) {
  asio::post(io_, [this, t = std::move(t)] {
    if (t->state != transfer::phase::finished)
      fail(t, make_error(core::errc::cancelled, "the HTTP request to " + printable_url(t->req.url) + " was cancelled"));
  });
}

void curl_loop::resume(std::shared_ptr<transfer> t) {
  asio::post(io_, [t = std::move(t)] {
    if (t->state == transfer::phase::running) curl_easy_pause(t->easy, CURLPAUSE_CONT);
  });
}

// --- curl's socket interface -------------------------------------------------

int curl_loop::on_socket(CURL*, curl_socket_t fd, int what, void* self, void*) {
  static_cast<curl_loop*>(self)->watch(fd, what);
  return 0;
}

int curl_loop::on_timer(CURLM*, long timeout_ms, void* self) {
  auto* e = static_cast<curl_loop*>(self);
  if (timeout_ms < 0) {
    e->curl_timer_->cancel();
    return 0;
  }
  // Never call back into curl from here: the timer fires on the next turn.
  e->curl_timer_->expires_at(e->clock_.steady_now() + std::chrono::milliseconds(timeout_ms));
  e->curl_timer_->async_wait([e](bool expired) {
    if (!expired || !e->multi_) return;
    int running = 0;
    curl_multi_socket_action(e->multi_, CURL_SOCKET_TIMEOUT, 0, &running);
    e->reap();
  });
  return 0;
}

// curl closes its sockets through here, so a descriptor Asio watches is
// always released (taken out of epoll) before its number can be reused.
int curl_loop::on_close_socket(void* self, curl_socket_t fd) {
  static_cast<curl_loop*>(self)->forget_socket(fd);
  return ::close(fd);
}

CURLcode curl_loop::on_ssl_context(CURL*, void* ssl_ctx, void* self) {
  // The system store is loaded by now; the extra CAs join it (OpenSSL skips
  // certificates the store already holds).
  X509_STORE* store = SSL_CTX_get_cert_store(static_cast<SSL_CTX*>(ssl_ctx));
  for (X509* cert : static_cast<curl_loop*>(self)->extra_cas_) X509_STORE_add_cert(store, cert);
  return CURLE_OK;
}

void curl_loop::watch(curl_socket_t fd, int what) {
  if (what == CURL_POLL_REMOVE) {
    forget_socket(fd);
    return;
  }
  auto& slot = sockets_[fd];
  if (!slot) slot = std::make_shared<socket_watch>(io_, fd);
  slot->wanted = what;
  arm(slot);
}

void curl_loop::arm(const std::shared_ptr<socket_watch>& w) {
  await_ready(w, asio::posix::descriptor_base::wait_read, CURL_POLL_IN, &socket_watch::reading, CURL_CSELECT_IN);
  await_ready(w, asio::posix::descriptor_base::wait_write, CURL_POLL_OUT, &socket_watch::writing, CURL_CSELECT_OUT);
}

// One direction of a socket: when curl wants it and no wait is out, wait for
// readiness, tell curl, and arm again for what curl wants then.
void curl_loop::await_ready(const std::shared_ptr<socket_watch>& w, asio::posix::descriptor_base::wait_type type,
                            int poll, bool socket_watch::*waiting, int event) {
  if (!(w->wanted & poll) || w.get()->*waiting) return;
  w.get()->*waiting = true;
  w->descriptor.async_wait(type, [this, w, waiting, event](boost::system::error_code ec) {
    w.get()->*waiting = false;
    if (w->released || ec == asio::error::operation_aborted) return;
    socket_ready(w->fd, ec ? CURL_CSELECT_ERR : event);
    if (!w->released) arm(w);
  });
}

void curl_loop::forget_socket(curl_socket_t fd) {
  auto it = sockets_.find(fd);
  if (it == sockets_.end()) return;
  it->second->released = true;
  boost::system::error_code ignored;
  it->second->descriptor.cancel(ignored);
  it->second->descriptor.release();  // curl owns the descriptor and closes it
  sockets_.erase(it);
}

void curl_loop::socket_ready(curl_socket_t fd, int event) {
  int running = 0;
  curl_multi_socket_action(multi_, fd, event, &running);
  reap();
}

// Collects the transfers curl has finished.
void curl_loop::reap() {
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    CURLcode code = msg->data.result;
    auto it = running_.find(msg->easy_handle);
    if (it == running_.end()) continue;
    auto t = it->second;
    finish(t, code == CURLE_OK ? std::optional<error>{} : detail::describe_failure(*t, code));
  }
}

// --- lanes and transfers -----------------------------------------------------

void curl_loop::enqueue(std::shared_ptr<transfer> t) {
  if (!multi_) {
    fail(t, make_error(core::errc::cancelled, "the HTTP client is shutting down"));
    return;
  }
  auto& l = *t->owner;
  // Made and destroyed on this thread: a transfer the awaiting side frees
  // later holds no timer of an io_context that may be gone by then.
  t->deadline_timer = clock_.make_timer(io_.get_executor());
  t->deadline_timer->expires_at(t->deadline);
  t->deadline_timer->async_wait([this, weak = std::weak_ptr<transfer>(t)](bool expired) {
    if (!expired) return;
    if (auto target = weak.lock()) on_deadline(target);
  });
  if (l.options.max_concurrent == 0 || l.running < l.options.max_concurrent) {
    start(std::move(t));
    return;
  }
  if (l.waiting.size() >= l.options.max_queued) {
    fail(t,
         make_error(net::errc::busy,
                    fmt::format("too many HTTP requests waiting ({} queued, {} running)", l.waiting.size(), l.running),
                    "send fewer requests at once or raise the concurrency setting"));
    return;
  }
  bool known = false;
  for (const auto& weak : lanes_) known = known || weak.lock() == t->owner;
  if (!known) lanes_.push_back(t->owner);
  l.waiting.push_back(std::move(t));
}

void curl_loop::start_waiting(detail::lane& l) {
  while (!l.waiting.empty() && (l.options.max_concurrent == 0 || l.running < l.options.max_concurrent)) {
    auto next = std::move(l.waiting.front());
    l.waiting.pop_front();
    start(std::move(next));
  }
}

void curl_loop::start(std::shared_ptr<transfer> t) {
  if (auto configured = detail::configure(*t); !configured) {
    fail(t, configured.error());
    return;
  }
  curl_easy_setopt(t->easy, CURLOPT_CLOSESOCKETFUNCTION, &curl_loop::on_close_socket);
  curl_easy_setopt(t->easy, CURLOPT_CLOSESOCKETDATA, this);
  if (!extra_cas_.empty()) {
    curl_easy_setopt(t->easy, CURLOPT_SSL_CTX_FUNCTION, &curl_loop::on_ssl_context);
    curl_easy_setopt(t->easy, CURLOPT_SSL_CTX_DATA, this);
  }
  if (curl_multi_add_handle(multi_, t->easy) != CURLM_OK) {
    fail(t, make_error(net::errc::connection_failed, "libcurl refused the transfer to " + printable_url(t->req.url)));
    return;
  }
  t->state = transfer::phase::running;
  t->owner->running++;
  running_[t->easy] = std::move(t);
}

void curl_loop::on_deadline(const std::shared_ptr<transfer>& t) {
  if (t->state == transfer::phase::finished) return;
  if (t->streaming && t->head_done) return;  // the reader's own deadlines take over
  t->timed_out = true;
  const bool waited = t->state == transfer::phase::queued;
  fail(t, make_error(net::errc::timeout,
                     fmt::format("no {} from {} within {} ms{}", t->streaming ? "response" : "complete answer",
                                 printable_url(t->req.url), t->req.timeout.count(),
                                 waited ? " (it was still waiting for a free connection slot)" : ""),
                     waited ? "send fewer requests at once" : "check that the server is up and answering"));
}

void curl_loop::fail(const std::shared_ptr<transfer>& t, error e) {
  finish(t, std::move(e));
}

void curl_loop::finish(const std::shared_ptr<transfer>& t, std::optional<error> failure) {
  if (t->state == transfer::phase::finished) return;
  auto& l = *t->owner;
  if (t->state == transfer::phase::running) {
    curl_multi_remove_handle(multi_, t->easy);
    running_.erase(t->easy);
    l.running--;
  } else {
    std::erase(l.waiting, t);
  }
  t->state = transfer::phase::finished;
  t->deadline_timer.reset();  // cancels its wait
  detail::deliver(*t, std::move(failure));
  start_waiting(l);
}

void curl_loop::shut_down() {
  auto gone = make_error(core::errc::cancelled, "the HTTP client shut down");
  // Copies: finish() erases the very entry a reference would point into.
  while (!running_.empty()) {
    auto t = running_.begin()->second;
    finish(t, gone);
  }
  for (const auto& weak : lanes_) {
    auto l = weak.lock();
    if (!l) continue;
    while (!l->waiting.empty()) {
      auto t = l->waiting.front();
      finish(t, gone);
    }
  }
  lanes_.clear();
  curl_multi_cleanup(multi_);  // closes cached connections through on_close_socket
  multi_ = nullptr;
  for (auto& [fd, w] : sockets_) {
    w->released = true;
    w->descriptor.release();
  }
  sockets_.clear();
  curl_timer_->cancel();
  keep_running_.reset();  // run() returns once the cancelled waits have run
}

// --- the public face ---------------------------------------------------------

std::shared_ptr<curl_loop> start_curl_loop(const curl_loop_options& options) {
  return std::make_shared<curl_loop>(options);
}

void stop_curl_loop(curl_loop& loop) {
  loop.stop();
}

}  // namespace harness::net
