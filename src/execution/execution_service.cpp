#include "harness/execution/execution_service.hpp"

#include <map>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/async_signal.hpp"
#include "harness/core/every.hpp"
#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/when_all.hpp"
#include "harness/execution/data_path.hpp"
#include "harness/execution/errors.hpp"
#include "run_slots.hpp"

namespace harness::execution {
namespace {

namespace asio = boost::asio;
using clock_type = std::chrono::steady_clock;
// How long after a one-shot answer its sandbox's removal starts (close_counted).
constexpr auto removal_delay = std::chrono::milliseconds(5);

// One sandbox bound to one user.
struct live_session {
  std::string id;
  std::string user_id;
  std::unique_ptr<sandbox_session> sandbox;
  clock_type::time_point last_used = clock_type::now();
  bool busy = false;
  bool held = false;  // recorded in the session directory (replicas): released when it ends
};

// The sessions map's key: user ids are [A-Za-z0-9_.-], so '/' cannot occur in one.
std::string session_key(const std::string& user_id, const std::string& session_id) {
  return user_id + "/" + session_id;
}

// Marks a session busy for one block, and idle again on every way out.
class busy_scope {
 public:
  explicit busy_scope(live_session& s) : session_(s) { session_.busy = true; }
  ~busy_scope() {
    session_.busy = false;
    session_.last_used = clock_type::now();
  }
  busy_scope(const busy_scope&) = delete;
  busy_scope& operator=(const busy_scope&) = delete;

 private:
  live_session& session_;
};

class execution_service_impl final : public execution_service,
                                     public std::enable_shared_from_this<execution_service_impl> {
 public:
  execution_service_impl(const asio::any_io_executor& executor, std::shared_ptr<warm_pool> pool,
                         std::shared_ptr<bridge::tool_gateway> tools, std::shared_ptr<const pii_filter_factory> filters,
                         execution_config config)
      : executor_(executor),
        pool_(std::move(pool)),
        tools_(std::move(tools)),
        filters_(std::move(filters)),
        config_(config),
        sweep_timer_(executor),
        closing_(executor),
        one_shots_(executor, {.per_user = config.max_running_per_user,
                              .per_key = config.max_running_per_key,
                              .wait = config.run_queue_wait}) {}

  void start_sweeper() { core::spawn_logged(executor_, sweep_loop(shared_from_this()), "session idle sweeper"); }

  asio::awaitable<result<execute_outcome>> execute(execute_request request) override {
    auto self = shared_from_this();  // keeps the service alive across the awaits
    auto started = clock_type::now();
    std::shared_ptr<live_session> session;
    bool opened_now = false;  // this request opened the session's sandbox
    double open_ms = 0;       // its sandbox's opening: the user's files read, the claim, `init` sent
    if (request.session_id) {
      auto it = sessions_.find(session_key(request.user_id, *request.session_id));
      if (it != sessions_.end()) {
        session = it->second;
        if (session->busy) {
          co_return make_error(execution::errc::session_busy,
                               "session '" + *request.session_id + "' is running another block",
                               "wait for it to finish, or use another sessionId");
        }
      }
    }
    // A one-shot block holds its place among the user's and the key's until it has answered.
    std::unique_ptr<run_slots::slot> one_shot;
    if (!request.session_id) {
      auto slot = co_await one_shots_.acquire(request.user_id, request.key_id);
      if (!slot) co_return slot.error();
      one_shot = std::move(*slot);
    }
    if (!session) {
      if (request.session_id && sessions_.size() + opening_ >= config_.max_sessions) {
        co_return make_error(execution::errc::too_many_sessions,
                             "there are already " + std::to_string(config_.max_sessions) + " live sessions",
                             "end one with DELETE /sessions/{id}, or run without a sessionId");
      }
      if (request.session_id && sessions_of(request.user_id) >= config_.max_sessions_per_user) {
        co_return make_error(execution::errc::too_many_sessions,
                             "user '" + request.user_id + "' already has " +
                                 std::to_string(config_.max_sessions_per_user) + " live sessions",
                             "end one with DELETE /sessions/{id}, or run without a sessionId "
                             "(SANDBOX_MAX_SESSIONS_PER_USER)");
      }
      ++opening_;  // counted before any wait, so overlapping requests see each other against the limits
      // With replicas: the id must not be open on another one (it holds the sandbox).
      if (request.session_id && config_.directory) {
        auto key = session_key(request.user_id, *request.session_id);  // a local: GCC 12
        auto holder = co_await config_.directory->hold(std::move(key));
        if (!holder || *holder != config_.directory->self()) --opening_;
        if (!holder) co_return holder.error();
        if (*holder != config_.directory->self()) co_return session_elsewhere(*request.session_id, *holder);
      }
      const auto opening = clock_type::now();
      auto opened =
          co_await open_session(request.session_id.value_or(core::make_id("sess_")), request.user_id, request.approver);
      --opening_;
      if (!opened) {
        if (request.session_id && config_.directory) release_later(session_key(request.user_id, *request.session_id));
        co_return opened.error();
      }
      session = std::move(*opened);
      session->held = request.session_id && config_.directory;
      opened_now = true;
      open_ms = std::chrono::duration<double, std::milli>(clock_type::now() - opening).count();
      if (request.session_id) sessions_[session_key(session->user_id, session->id)] = session;
    }
    execute_outcome out;
    {
      busy_scope busy(*session);
      out.block = co_await session->sandbox->exec(std::move(request.code), config_.exec_timeout);
    }
    out.ended = !request.session_id || session->sandbox->broken();
    if (request.session_id) out.session_id = session->id;
    out.warm = session->sandbox->warm();
    out.opened = opened_now;
    out.channel = session->sandbox->channel_kind();
    out.total_ms = std::chrono::duration<double, std::milli>(clock_type::now() - started).count();
    out.open_ms = open_ms;
    if (out.ended) {
      forget(session);
      // Remove the container after answering: the caller need not wait for it.
      close_later(std::move(session), "closing");
    }
    co_return out;
  }

  asio::awaitable<status> end_session(std::string user_id, std::string session_id) override {
    auto it = sessions_.find(session_key(user_id, session_id));
    if (it == sessions_.end()) {
      if (config_.directory) {
        auto key = session_key(user_id, session_id);  // a local: GCC 12
        auto holder = co_await config_.directory->holder(std::move(key));
        if (!holder) co_return holder.error();  // a store that cannot answer is not "no such session"
        if (!holder->empty() && *holder != config_.directory->self()) {
          co_return session_elsewhere(session_id, *holder);
        }
      }
      co_return make_error(execution::errc::session_not_found, "no live session '" + session_id + "'",
                           "it may have idled out or ended after a timeout");
    }
    auto session = it->second;
    sessions_.erase(it);
    if (session->held) {
      // Released before answering: once DELETE returns, another replica may open the id.
      session->held = false;
      auto key = session_key(user_id, session_id);  // a local: GCC 12
      co_await config_.directory->release(std::move(key));
    }
    if (session->busy) {
      // The block in flight ends at once with a SandboxError; its request
      // then removes the container.
      core::log_info("session {} ended while a block ran; stopping its sandbox", session_id);
      session->sandbox->kill();
      co_return status{};
    }
    co_await close_session(std::move(session));
    co_return status{};
  }

  asio::awaitable<void> shutdown() override {
    stopping_ = true;
    sweep_timer_.cancel();
    for (const auto& [key, session] : sessions_) released(*session);
    co_await core::close_all(sessions_, &close_session);
    co_await closing_.wait_zero();  // the sandboxes being removed in the background
  }

  std::size_t session_count() const override { return sessions_.size(); }

 private:
  asio::awaitable<result<std::shared_ptr<live_session>>> open_session(std::string id, std::string user_id,
                                                                      std::shared_ptr<policy::approver> approver) {
    std::shared_ptr<bridge::data_filter> filter;
    if (filters_) {
      auto pii = filters_->make(std::make_shared<pii::pii_vault>());  // the session's own vault
      pii->set_approver(std::move(approver));
      filter = std::move(pii);
    }
    sandbox_session_options options;  // a local: GCC 12 miscompiles braced lists in co_await arguments
    options.id = id;
    options.user_id = user_id;
    options.files = config_.files;
    options.blocking = config_.blocking;
    options.limits = config_.limits;
    options.metrics = config_.metrics;
    auto opened = co_await sandbox_session::open(executor_, *pool_, *tools_, std::move(filter), std::move(options));
    if (!opened) co_return opened.error();
    auto session = std::make_shared<live_session>();
    session->id = std::move(id);
    session->user_id = std::move(user_id);
    session->sandbox = std::move(*opened);
    co_return session;
  }

  std::size_t sessions_of(const std::string& user_id) const {
    std::size_t n = 0;
    for (const auto& [id, s] : sessions_) n += s->user_id == user_id ? 1 : 0;
    return n;
  }

  // Drops `session` from the table, unless the id has moved on to a newer
  // session (the old one was deleted while its block ran).
  void forget(const std::shared_ptr<live_session>& session) {
    auto it = sessions_.find(session_key(session->user_id, session->id));
    if (it != sessions_.end() && it->second == session) {
      sessions_.erase(it);
      released(*session);
    }
  }

  // A held session left the table: the directory forgets it (in the background).
  void released(live_session& session) {
    if (!session.held) return;
    session.held = false;
    release_later(session_key(session.user_id, session.id));
  }
  void release_later(std::string key) {
    auto release = config_.directory->release(std::move(key));  // a local: GCC 12
    core::spawn_logged(executor_, std::move(release), "session directory: release");
  }

  static asio::awaitable<void> close_session(std::shared_ptr<live_session> session) {
    co_await session->sandbox->close();
  }

  // Removes a session's sandbox in the background, counted so that shutdown
  // waits for it: a server that exits first would leave the container behind.
  void close_later(std::shared_ptr<live_session> session, std::string_view why) {
    closing_.add();
    const std::string what = "session " + session->id + ": " + std::string(why);
    core::spawn_logged(executor_, close_counted(shared_from_this(), std::move(session)), what);
  }

  static asio::awaitable<void> close_counted(std::shared_ptr<execution_service_impl> self,
                                             std::shared_ptr<live_session> session) {
    struct done_on_exit {
      core::async_counter& counter;
      ~done_on_exit() { counter.done(); }
    } done{self->closing_};
    // After the answer has gone out: spawned before it, the removal's engine
    // connection was opened on the I/O thread ahead of the response write.
    asio::steady_timer after_answer(self->executor_, removal_delay);
    co_await after_answer.async_wait(asio::as_tuple(asio::use_awaitable));
    co_await session->sandbox->close();
  }

  static asio::awaitable<void> sweep_loop(std::shared_ptr<execution_service_impl> self) {
    auto interval = std::clamp<std::chrono::milliseconds>(
        self->config_.idle_timeout / 4, std::chrono::milliseconds(250), std::chrono::milliseconds(5000));
    auto tick = [&self] { self->end_idle_sessions(); };
    co_await core::every(self->sweep_timer_, interval, self->stopping_, tick);
  }

  void end_idle_sessions() {
    auto now = clock_type::now();
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      auto& s = it->second;
      if (!s->busy && now - s->last_used >= config_.idle_timeout) {
        core::log_info("session {} idled out", s->id);
        released(*s);
        close_later(std::move(s), "closing after idling out");
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }

  asio::any_io_executor executor_;
  std::shared_ptr<warm_pool> pool_;
  std::shared_ptr<bridge::tool_gateway> tools_;
  std::shared_ptr<const pii_filter_factory> filters_;
  execution_config config_;
  asio::steady_timer sweep_timer_;
  // Keyed by session_key: a session id names a session within one user, so
  // another user's request for the same id opens (or misses) its own.
  std::map<std::string, std::shared_ptr<live_session>> sessions_;
  std::size_t opening_ = 0;
  core::async_counter closing_;  // sandboxes being removed by close_later
  run_slots one_shots_;          // one-shot blocks running, per user and per key
  bool stopping_ = false;
};

}  // namespace

std::shared_ptr<execution_service> create_execution_service(const asio::any_io_executor& executor,
                                                            std::shared_ptr<warm_pool> pool,
                                                            std::shared_ptr<bridge::tool_gateway> tools,
                                                            std::shared_ptr<const pii_filter_factory> filters,
                                                            execution_config config) {
  auto service =
      std::make_shared<execution_service_impl>(executor, std::move(pool), std::move(tools), std::move(filters), config);
  service->start_sweeper();
  return service;
}

}  // namespace harness::execution
