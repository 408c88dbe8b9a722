#include "harness/execution/execution_service.hpp"

#include <map>

#include <fmt/format.h>

#include "harness/core/async_signal.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/periodic_job.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/when_all.hpp"
#include "harness/execution/data_path.hpp"
#include "harness/execution/errors.hpp"
#include "run_slots.hpp"

namespace harness::execution {
namespace {

namespace asio = boost::asio;
// How long after a one-shot answer its sandbox's removal starts (close_counted).
constexpr auto removal_delay = std::chrono::milliseconds(5);

double ms_between(core::steady_time from, core::steady_time to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

// One sandbox bound to one user. A named session is in the table from the
// moment its first request checked the limits, before its sandbox has
// started (sandbox null, busy): a second request for the id is then answered
// session_busy, as while a block runs, and the limits count it.
struct exec_session {
  std::string id;
  std::string user_id;
  bool admin = false;  // the request that opened it had admin rights (tool policy "role")
  sandbox::language language = sandbox::language::javascript;  // of its first block, for all
  std::unique_ptr<sandbox_session> sandbox;                    // null while it starts
  core::steady_time last_used{};
  bool busy = false;
  bool held = false;  // recorded in the session directory (replicas): released when it ends
  // Taken out of the table (DELETE, shutdown) while its sandbox started: the
  // request that opens it answers as for a block whose sandbox was killed.
  bool ended = false;
};

// The sessions map's key: user ids are [A-Za-z0-9_.-], so '/' cannot occur in one.
std::string session_key(const std::string& user_id, const std::string& session_id) {
  return user_id + "/" + session_id;
}

// Marks a session busy for one block, and idle again on every way out.
class busy_scope {
 public:
  busy_scope(exec_session& s, const core::clock& clock) : session_(s), clock_(clock) { session_.busy = true; }
  ~busy_scope() {
    session_.busy = false;
    session_.last_used = clock_.steady_now();
  }
  busy_scope(const busy_scope&) = delete;
  busy_scope& operator=(const busy_scope&) = delete;

 private:
  exec_session& session_;
  const core::clock& clock_;
};

class execution_service_impl final : public execution_service,
                                     public std::enable_shared_from_this<execution_service_impl> {
 public:
  execution_service_impl(const asio::any_io_executor& executor, language_pools pools,
                         std::shared_ptr<bridge::tool_gateway> tools, std::shared_ptr<const pii_filter_factory> filters,
                         execution_config config, core::clock& clock)
      : executor_(executor),
        clock_(clock),
        pools_(std::move(pools)),
        tools_(std::move(tools)),
        filters_(std::move(filters)),
        config_(config),
        sweep_(executor, clock, "session idle sweeper"),
        sessions_starting_(executor, clock),
        closing_(executor, clock),
        one_shots_(executor, clock,
                   {.per_user = config.max_running_per_user,
                    .per_key = config.max_running_per_key,
                    .wait = config.run_queue_wait}) {}

  void start_sweeper() {
    const auto interval = std::clamp<std::chrono::milliseconds>(
        config_.idle_timeout / 4, std::chrono::milliseconds(250), std::chrono::milliseconds(5000));
    sweep_.start(interval, core::periodic_job::plain([weak = weak_from_this()] {
                   if (auto self = weak.lock()) self->end_idle_sessions();
                 }));
  }

  asio::awaitable<result<execute_outcome>> execute(execute_request request) override {
    auto block = request.trace.child("execute_code");
    block.set("harness.block.language", std::string(sandbox::language_name(request.language)));
    block.set("harness.block.session", request.session_id.has_value());
    // No code, even with content capture on: a caller's code is not censored here.
    auto out = co_await execute_block(std::move(request), block);
    if (!out) {
      block.fail(out.error().code.wire_name());
    } else {
      block.set("harness.sandbox.warm", out->warm);
      block.set("harness.block.tool_calls", out->block.tool_calls.size());
      if (!out->block.ok) block.fail("block_failed");  // the error's text comes from the code: not set
    }
    co_return out;
  }

 private:
  asio::awaitable<result<execute_outcome>> execute_block(execute_request request, const telemetry::span& block) {
    auto self = shared_from_this();  // keeps the service alive across the awaits
    const auto started = clock_.steady_now();
    const bool named = request.session_id.has_value();
    if (!pools_.find(request.language)) {
      co_return make_error(execution::errc::unsupported_language,
                           fmt::format("this server runs no {} sandboxes", sandbox::language_name(request.language)),
                           "send \"language\": \"javascript\"");
    }
    std::shared_ptr<exec_session> session;
    if (named) {
      auto it = sessions_.find(session_key(request.user_id, *request.session_id));
      // Idle past its time but not swept yet: ended now, so the block runs in a fresh sandbox.
      if (it != sessions_.end() && idled_out(*it->second, started)) {
        end_idle(it);
      } else if (it != sessions_.end()) {
        session = it->second;
        if (session->language != request.language) {
          co_return make_error(
              execution::errc::language_mismatch,
              fmt::format("session '{}' runs {}, not {}", *request.session_id,
                          sandbox::language_name(session->language), sandbox::language_name(request.language)),
              "send this block without a sessionId or with another one, or end the session first");
        }
        if (session->busy) {
          co_return make_error(execution::errc::session_busy,
                               "session '" + *request.session_id + "' is running another block",
                               "wait for it to finish, or use another sessionId");
        }
      }
    }
    // A one-shot block holds its place among the user's and the key's until it has answered.
    std::unique_ptr<run_slots::slot> one_shot;
    if (!named) {
      auto slot = co_await one_shots_.acquire(request.user_id, request.key_id);
      if (!slot) co_return slot.error();
      one_shot = std::move(*slot);
      // Stopped while it waited for its slot: no sandbox is opened for it.
      if (request.stop && request.stop->requested()) {
        co_return make_error(core::errc::cancelled, "the block was stopped before it started");
      }
    }
    bool opened_now = false;  // this request opened the session's sandbox
    double open_ms = 0;       // its sandbox's opening: the user's files read, the claim, `init` sent
    if (!session) {
      if (named) {
        if (auto refused = over_limits(request.user_id)) co_return std::move(*refused);
      }
      session = std::make_shared<exec_session>();
      session->id = request.session_id.value_or(core::make_id("sess_"));
      session->user_id = request.user_id;
      session->admin = request.admin;
      session->language = request.language;
      // Before the first wait, so that overlapping requests see each other.
      starting reserved(*this, session, named);
      auto claim = block.child("sandbox.claim");
      auto opened = co_await open_sandbox(*session, named, request.approver);
      if (!opened) {
        claim.fail(opened.error().code.wire_name());
        co_return opened.error();
      }
      claim.end();
      opened_now = true;
      open_ms = ms_between(session->last_used, clock_.steady_now());
      session->last_used = clock_.steady_now();
      if (session->ended) co_return ended_while_starting(std::move(session), started);
    }
    execute_outcome out;
    {
      busy_scope busy(*session, clock_);
      if (request.stop) {
        std::weak_ptr<exec_session> weak = session;
        request.stop->arm([weak] {
          if (auto s = weak.lock(); s && s->sandbox) s->sandbox->kill();
        });
      }
      auto trace = block.parent();  // named: GCC 12 and temporaries in co_await
      out.block = co_await session->sandbox->exec(std::move(request.code), config_.exec_timeout, std::move(trace));
      if (request.stop) request.stop->disarm();
    }
    out.ended = !named || session->sandbox->broken();
    if (named) out.session_id = session->id;
    out.language = session->language;
    out.warm = session->sandbox->warm();
    out.opened = opened_now;
    out.channel = session->sandbox->channel_kind();
    out.total_ms = ms_between(started, clock_.steady_now());
    out.open_ms = open_ms;
    if (out.ended) {
      forget(session);
      // Remove the container after answering: the caller need not wait for it.
      close_later(std::move(session), "closing");
    }
    co_return out;
  }

 public:
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
    session->ended = true;
    if (session->held) {
      // Released before answering: once DELETE returns, another replica may open the id.
      session->held = false;
      auto key = session_key(user_id, session_id);  // a local: GCC 12
      co_await config_.directory->release(std::move(key));
    }
    if (session->busy) {
      // The block in flight ends at once with a SandboxError; its request
      // then removes the container. A sandbox still starting is removed by
      // the request that opens it, once it has started.
      core::log_info("session {} ended while a block ran or its sandbox started; stopping it", session_id);
      if (session->sandbox) session->sandbox->kill();
      co_return status{};
    }
    co_await close_session(std::move(session));
    co_return status{};
  }

  asio::awaitable<void> shutdown() override {
    stopping_ = true;
    sweep_.stop();
    for (const auto& [key, session] : sessions_) {
      released(*session);
      session->ended = true;
    }
    co_await core::close_all(sessions_, &close_session);
    co_await sessions_starting_.wait_zero();  // each then has its sandbox's removal under way
    co_await closing_.wait_zero();            // the sandboxes being removed in the background
  }

  std::size_t session_count() const override { return sessions_.size(); }

 private:
  // A session whose sandbox is starting, from before the first wait until
  // the request opening it goes on to run its block (or fails): a named one
  // is in the table, busy, so a second request for the id gets session_busy
  // and the limits count it; a one-shot one is counted for the global limit.
  // If the sandbox did not start, the table lets go of the session.
  class starting {
   public:
    starting(execution_service_impl& service, std::shared_ptr<exec_session> session, bool named)
        : service_(service), session_(std::move(session)), named_(named) {
      session_->busy = true;
      if (named_) {
        service_.sessions_[session_key(session_->user_id, session_->id)] = session_;
        service_.sessions_starting_.add();
      } else {
        ++service_.one_shots_starting_;
      }
    }
    ~starting() {
      if (!named_) {
        --service_.one_shots_starting_;
        return;
      }
      if (!session_->sandbox) service_.forget_entry(*session_);
      service_.sessions_starting_.done();
    }
    starting(const starting&) = delete;
    starting& operator=(const starting&) = delete;

   private:
    execution_service_impl& service_;
    std::shared_ptr<exec_session> session_;
    bool named_;
  };

  // Starts `session`'s sandbox: with replicas, first records that this one
  // holds the id (it must not be open on another). Its last_used is set to
  // when the sandbox's opening began.
  asio::awaitable<status> open_sandbox(exec_session& session, bool named, std::shared_ptr<policy::approver> approver) {
    if (named && config_.directory) {
      auto key = session_key(session.user_id, session.id);  // a local: GCC 12
      auto holder = co_await config_.directory->hold(std::move(key));
      if (!holder) co_return holder.error();
      if (*holder != config_.directory->self()) co_return session_elsewhere(session.id, *holder);
      session.held = true;
    }
    session.last_used = clock_.steady_now();
    std::shared_ptr<bridge::data_filter> filter;
    if (filters_) {
      // The session's own vault; the policy's rules see its user and role.
      auto pii = filters_->make(std::make_shared<pii::pii_vault>(), {session.user_id, session.admin});
      pii->set_approver(std::move(approver));
      filter = std::move(pii);
    }
    sandbox_session_options options;  // a local: GCC 12 miscompiles braced lists in co_await arguments
    options.id = session.id;
    options.user_id = session.user_id;
    options.files = config_.files;
    options.blocking = config_.blocking;
    options.limits = config_.limits;
    options.metrics = config_.metrics;
    auto opened = co_await sandbox_session::open(executor_, clock_, *pools_.find(session.language), *tools_,
                                                 std::move(filter), std::move(options));
    if (!opened) {
      released(session);
      co_return opened.error();
    }
    session.sandbox = std::move(*opened);
    co_return status{};
  }

  // too_many_sessions when one more named session would pass a limit; the
  // sessions still starting count (they are in the table), and so do the
  // one-shot sandboxes starting for the global one.
  std::optional<error> over_limits(const std::string& user_id) const {
    if (sessions_.size() + one_shots_starting_ >= config_.max_sessions) {
      return make_error(execution::errc::too_many_sessions,
                        "there are already " + std::to_string(config_.max_sessions) + " live sessions",
                        "end one with DELETE /sessions/{id}, or run without a sessionId");
    }
    if (sessions_of(user_id) >= config_.max_sessions_per_user) {
      return make_error(
          execution::errc::too_many_sessions,
          "user '" + user_id + "' already has " + std::to_string(config_.max_sessions_per_user) + " live sessions",
          "end one with DELETE /sessions/{id}, or run without a sessionId "
          "(SANDBOX_MAX_SESSIONS_PER_USER)");
    }
    return std::nullopt;
  }

  // The answer to the request that opened a session which was ended (DELETE,
  // shutdown) while its sandbox started: as for a block whose sandbox was
  // killed, a SandboxError, and the sandbox is removed.
  execute_outcome ended_while_starting(std::shared_ptr<exec_session> session, core::steady_time started) {
    execute_outcome out;
    bridge::fail(out.block, bridge::failure_kind::sandbox, "the session was ended while its sandbox started");
    out.session_id = session->id;
    out.language = session->language;
    out.warm = session->sandbox->warm();
    out.ended = true;
    out.opened = true;
    out.channel = session->sandbox->channel_kind();
    out.total_ms = ms_between(started, clock_.steady_now());
    released(*session);
    close_later(std::move(session), "closing: ended while it started");
    return out;
  }

  std::size_t sessions_of(const std::string& user_id) const {
    std::size_t n = 0;
    for (const auto& [id, s] : sessions_) n += s->user_id == user_id ? 1 : 0;
    return n;
  }

  bool idled_out(const exec_session& s, core::steady_time now) const {
    return !s.busy && now - s.last_used >= config_.idle_timeout;
  }

  // Ends an idle session: out of the table, its sandbox removed in the background.
  std::map<std::string, std::shared_ptr<exec_session>>::iterator end_idle(
      std::map<std::string, std::shared_ptr<exec_session>>::iterator it) {
    auto& s = it->second;
    core::log_info("session {} idled out", s->id);
    released(*s);
    close_later(std::move(s), "closing after idling out");
    return sessions_.erase(it);
  }

  // Drops `session` from the table, unless the id has moved on to a newer
  // session (the old one was deleted while its block ran).
  void forget(const std::shared_ptr<exec_session>& session) {
    if (forget_entry(*session)) released(*session);
  }
  bool forget_entry(const exec_session& session) {
    auto it = sessions_.find(session_key(session.user_id, session.id));
    if (it == sessions_.end() || it->second.get() != &session) return false;
    sessions_.erase(it);
    return true;
  }

  // A held session left the table: the directory forgets it (in the background).
  void released(exec_session& session) {
    if (!session.held) return;
    session.held = false;
    release_later(session_key(session.user_id, session.id));
  }
  void release_later(std::string key) {
    auto release = config_.directory->release(std::move(key));  // a local: GCC 12
    core::spawn_logged(executor_, std::move(release), "session directory: release");
  }

  // A session still starting has no sandbox yet: the request opening it removes it.
  static asio::awaitable<void> close_session(std::shared_ptr<exec_session> session) {
    if (session->sandbox) co_await session->sandbox->close();
  }

  // Removes a session's sandbox in the background, counted so that shutdown
  // waits for it: a server that exits first would leave the container behind.
  void close_later(std::shared_ptr<exec_session> session, std::string_view why) {
    closing_.add();
    const std::string what = "session " + session->id + ": " + std::string(why);
    core::spawn_logged(executor_, close_counted(shared_from_this(), std::move(session)), what);
  }

  static asio::awaitable<void> close_counted(std::shared_ptr<execution_service_impl> self,
                                             std::shared_ptr<exec_session> session) {
    struct done_on_exit {
      core::async_counter& counter;
      ~done_on_exit() { counter.done(); }
    } done{self->closing_};
    // After the answer has gone out: spawned before it, the removal's engine
    // connection was opened on the I/O thread ahead of the response write.
    auto after_answer = self->clock_.make_timer(self->executor_);
    after_answer->expires_at(self->clock_.steady_now() + removal_delay);
    co_await after_answer->wait();
    co_await session->sandbox->close();
  }

  void end_idle_sessions() {
    const auto now = clock_.steady_now();
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      it = idled_out(*it->second, now) ? end_idle(it) : std::next(it);
    }
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  language_pools pools_;
  std::shared_ptr<bridge::tool_gateway> tools_;
  std::shared_ptr<const pii_filter_factory> filters_;
  execution_config config_;
  core::periodic_job sweep_;
  // Keyed by session_key: a session id names a session within one user, so
  // another user's request for the same id opens (or misses) its own. Holds
  // the sessions still starting too.
  std::map<std::string, std::shared_ptr<exec_session>> sessions_;
  core::async_counter sessions_starting_;  // named sessions whose sandbox is starting
  std::size_t one_shots_starting_ = 0;     // one-shot sandboxes starting (the global limit counts them)
  core::async_counter closing_;            // sandboxes being removed by close_later
  run_slots one_shots_;                    // one-shot blocks running, per user and per key
  bool stopping_ = false;
};

}  // namespace

std::shared_ptr<execution_service> create_execution_service(const asio::any_io_executor& executor, language_pools pools,
                                                            std::shared_ptr<bridge::tool_gateway> tools,
                                                            std::shared_ptr<const pii_filter_factory> filters,
                                                            execution_config config, core::clock& clock) {
  auto service = std::make_shared<execution_service_impl>(executor, std::move(pools), std::move(tools),
                                                          std::move(filters), config, clock);
  service->start_sweeper();
  return service;
}

}  // namespace harness::execution
