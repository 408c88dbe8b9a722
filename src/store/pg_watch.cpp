#include "pg_watch.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <libpq-fe.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "harness/core/logging.hpp"
#include "harness/store/errors.hpp"
#include "pg_connection.hpp"
#include "pg_conninfo.hpp"

namespace harness::store::detail {
namespace {

constexpr int first_backoff_ms = 100;
constexpr int max_backoff_ms = 5000;

std::string from_hex(std::string_view hex) {
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return 0;
  };
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(value(hex[i]) * 16 + value(hex[i + 1])));
  return out;
}

std::string last_message(PGconn* conn) {
  return pg_message(PQerrorMessage(conn));
}

}  // namespace

struct pg_watch::state {
  std::string url, description;
  std::function<void(const std::string&)> on_change;
  int stop_fd = -1;
  PGconn* conn = nullptr;
  std::thread thread;

  ~state() {
    if (conn != nullptr) PQfinish(conn);
    if (stop_fd >= 0) ::close(stop_fd);
  }

  // Waits until `fd` is ready for `events` or `timeout_ms` passes (-1: no
  // timeout). False when the stop eventfd fired.
  bool wait(int fd, short events, int timeout_ms) const {
    pollfd fds[2] = {{stop_fd, POLLIN, 0}, {fd, events, 0}};
    for (;;) {
      int n = ::poll(fds, fd >= 0 ? 2 : 1, timeout_ms);
      if (n < 0 && errno == EINTR) continue;
      return (fds[0].revents & POLLIN) == 0;
    }
  }

  // Connects without blocking past a stop request, then LISTENs. Empty on success.
  std::string connect() {
    if (conn != nullptr) PQfinish(conn);
    if (!parses_as_conninfo(url)) return "STORE_URL is not a valid libpq connection URI";
    const connect_params params(url);
    conn = PQconnectStartParams(params.keys(), params.values(), 1);
    if (conn == nullptr) return "out of memory";
    if (PQstatus(conn) == CONNECTION_BAD) return last_message(conn);
    PQsetNoticeProcessor(
        conn, [](void*, const char*) {}, nullptr);
    for (auto poll_state = PGRES_POLLING_WRITING;;) {
      if (poll_state == PGRES_POLLING_OK) break;
      if (poll_state == PGRES_POLLING_FAILED) return last_message(conn);
      const short events = poll_state == PGRES_POLLING_READING ? POLLIN : POLLOUT;
      if (!wait(PQsocket(conn), events, -1)) return "stopped";
      poll_state = PQconnectPoll(conn);
    }
    PGresult* r = PQexec(conn, fmt::format("LISTEN {}", changes_channel).c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok) return last_message(conn);
    return {};
  }

  bool stopped() const {
    pollfd fd{stop_fd, POLLIN, 0};
    return ::poll(&fd, 1, 0) > 0;
  }

  void run() {
    for (;;) {
      if (!listen_until_lost()) return;
      core::log_warn("store {}: lost the connection that follows changes ({}); reconnecting", description,
                     last_message(conn));
      if (!reconnect()) return;
      on_change("");
    }
  }

  // Delivers notifications until the connection drops (true) or stop (false).
  bool listen_until_lost() {
    for (;;) {
      if (!wait(PQsocket(conn), POLLIN, -1)) return false;
      if (PQconsumeInput(conn) == 0) return true;
      while (PGnotify* n = PQnotifies(conn)) {
        std::string id = from_hex(n->extra);
        PQfreemem(n);
        on_change(id);
      }
      if (PQstatus(conn) == CONNECTION_BAD) return true;
    }
  }

  // Tries again and again, waiting longer each time; false on stop.
  bool reconnect() {
    for (int backoff = first_backoff_ms;; backoff = std::min(backoff * 2, max_backoff_ms)) {
      if (!wait(-1, 0, backoff)) return false;
      auto failure = connect();
      if (failure.empty()) return true;
      if (stopped()) return false;
      core::log_debug("store {}: cannot reconnect to follow changes yet: {}", description, failure);
    }
  }
};

result<std::unique_ptr<pg_watch>> pg_watch::start(const std::string& url,
                                                  std::function<void(const std::string&)> on_change) {
  auto s = std::make_unique<state>();
  s->url = url;
  s->description = redact_url(url);
  s->on_change = std::move(on_change);
  s->stop_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (s->stop_fd < 0) return make_error(errc::error, "cannot create an eventfd to follow changes");
  if (auto failure = s->connect(); !failure.empty()) return pg_open_failed(s->description, failure);
  s->thread = std::thread([raw = s.get()] { raw->run(); });
  return std::unique_ptr<pg_watch>(new pg_watch(std::move(s)));
}

pg_watch::pg_watch(std::unique_ptr<state> s) : state_(std::move(s)) {}

pg_watch::~pg_watch() {
  const std::uint64_t one = 1;
  (void)!::write(state_->stop_fd, &one, sizeof one);
  state_->thread.join();
}

}  // namespace harness::store::detail
