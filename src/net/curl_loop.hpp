// The curl loop behind every http_client: one thread running an io_context that
// drives one curl multi handle through curl's socket interface (curl says
// which sockets to watch and when its timer is due; Asio watches them). Only
// that thread touches curl; other threads hand it work with post().
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <curl/curl.h>
#include <openssl/ossl_typ.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include "harness/core/clock.hpp"
#include "harness/net/http_client.hpp"
#include "transfer.hpp"

namespace harness::net {

class curl_loop {
 public:
  explicit curl_loop(const curl_loop_options& options);
  ~curl_loop();
  curl_loop(const curl_loop&) = delete;
  curl_loop& operator=(const curl_loop&) = delete;

  // Thread-safe. Queues the transfer on its lane; it starts when the lane has
  // a free slot, or fails busy / at its deadline; after stop(), cancelled.
  void submit(std::shared_ptr<detail::transfer> t);
  // Thread-safe, idempotent; not on the curl loop's own thread. Ends every
  // transfer (its waiter gets cancelled) and joins the thread.
  void stop();
  // Thread-safe. Ends a queued or running transfer with `why` (cancelled, or
  // nothing to report when its reader is gone); a finished one is left alone.
  void abort(std::shared_ptr<detail::transfer> t);
  // Thread-safe. Lets a paused stream's transfer go on.
  void resume(std::shared_ptr<detail::transfer> t);

  const curl_loop_options& options() const { return options_; }

 private:
  struct socket_watch {
    explicit socket_watch(boost::asio::io_context& io, curl_socket_t socket) : descriptor(io, socket), fd(socket) {}
    boost::asio::posix::stream_descriptor descriptor;
    curl_socket_t fd;
    int wanted = 0;  // CURL_POLL_IN / OUT / INOUT
    bool reading = false, writing = false, released = false;
  };

  static int on_socket(CURL* easy, curl_socket_t fd, int what, void* self, void* socket_data);
  static int on_timer(CURLM* multi, long timeout_ms, void* self);
  static int on_close_socket(void* self, curl_socket_t fd);
  static CURLcode on_ssl_context(CURL* easy, void* ssl_ctx, void* self);

  void watch(curl_socket_t fd, int what);
  void arm(const std::shared_ptr<socket_watch>& w);
  void await_ready(const std::shared_ptr<socket_watch>& w, boost::asio::posix::descriptor_base::wait_type type,
                   int poll, bool socket_watch::*waiting, int event);
  void forget_socket(curl_socket_t fd);
  void socket_ready(curl_socket_t fd, int event);
  void reap();

  void enqueue(std::shared_ptr<detail::transfer> t);
  void start_waiting(detail::lane& l);
  void start(std::shared_ptr<detail::transfer> t);
  void on_deadline(const std::shared_ptr<detail::transfer>& t);
  // Ends a transfer: removes it from curl (or its lane's line), frees its
  // slot, completes its waiter with its outcome (failure, or what arrived).
  void finish(const std::shared_ptr<detail::transfer>& t, std::optional<error> failure);
  void fail(const std::shared_ptr<detail::transfer>& t, error e);
  void shut_down();

  curl_loop_options options_;
  std::vector<X509*> extra_cas_;
  boost::asio::io_context io_;
  CURLM* multi_ = nullptr;
  // curl reads the real monotonic clock itself, so the timers it asks for
  // (and the transfers' deadlines, which sit beside its own timeouts) are on
  // core::real_clock(), never on a clock a test could hold still.
  core::clock& clock_ = core::real_clock();
  std::unique_ptr<core::timer> curl_timer_;
  std::map<curl_socket_t, std::shared_ptr<socket_watch>> sockets_;
  std::map<CURL*, std::shared_ptr<detail::transfer>> running_;
  // Lanes that have had transfers waiting, so shutting down can fail them.
  std::vector<std::weak_ptr<detail::lane>> lanes_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> keep_running_;
  std::atomic<bool> stopped_{false};
  std::mutex stop_mutex_;
  std::thread thread_;
};

}  // namespace harness::net
