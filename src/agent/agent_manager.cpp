#include "harness/agent/agent_manager.hpp"

#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>

#include "event_streams.hpp"
#include "harness/agent/errors.hpp"
#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/pii/pii_censor.hpp"
#include "harness/pii/vault_seal.hpp"
#include "harness/store/errors.hpp"
#include "task_approvals.hpp"
#include "task_changes.hpp"
#include "task_loop.hpp"
#include "task_record.hpp"

namespace harness::agent {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;

// How long after a task of another replica ended its stream is still followed
// (see events()): far longer than its owner takes to store its last events.
constexpr std::chrono::milliseconds follow_after_end{5000};

// The conversation a task continues (or starts).
struct conversation_start {
  std::string id;
  std::vector<llm::message> messages;
  std::shared_ptr<pii::pii_vault> vault = std::make_shared<pii::pii_vault>();
  std::int64_t created_ms = 0;
};

class agent_manager_impl final : public agent_manager, public std::enable_shared_from_this<agent_manager_impl> {
 public:
  agent_manager_impl(const asio::any_io_executor& executor, agent_dependencies deps, agent_config config,
                     core::clock& clock)
      : executor_(executor),
        deps_(std::move(deps)),
        config_(std::move(config)),
        clock_(clock),
        changes_(std::make_shared<task_changes>(executor, clock)) {}

  // With a store other replicas share: their tasks' changes wake the streams
  // that follow them here. (The leases are the app's replica upkeep.)
  void follow_other_replicas() {
    if (!deps_.store->shared()) return;
    auto watched = deps_.store->watch_changes([changes = changes_, executor = executor_](const std::string& id) {
      asio::post(executor, [changes, id] { changes->changed(id); });
    });
    if (!watched) {
      core::log_warn("tasks of other replicas are followed only at each keep-alive: {}", watched.error().describe());
    }
  }

  asio::awaitable<result<task_ticket>> submit(task_request request) override {
    auto self = shared_from_this();
    if (!deps_.llm) {
      co_return make_error(agent::errc::no_llm, "no LLM is configured, so no task can start",
                           "set LLM_API_KEY (or LLM_BASE_URL, or LLM_PROVIDER=replay)");
    }
    if (request.language.value_or(config_.language) == sandbox::language::python && !deps_.python_pool) {
      co_return make_error(agent::errc::language_unavailable, "this server runs no Python sandboxes",
                           "send \"language\": \"javascript\"");
    }
    // Checked and reserved before the first wait on the store, so submits
    // that overlap while the store answers cannot both take the last slot.
    if (auto refused = admission(request)) co_return *refused;
    reservation held(*this, request);
    auto conversation = co_await open_conversation(request);
    if (!conversation) co_return conversation.error();
    // Busy only once the conversation is known to be the user's: another
    // user's, busy or not, was answered above like a missing one.
    if (request.conversation_id) {
      if (busy_conversations_.count(*request.conversation_id)) {
        co_return conversation_busy_error(*request.conversation_id);
      }
      held.hold_conversation(*request.conversation_id);
    }
    auto task = make_task(std::move(request), std::move(*conversation));
    // The store counts the user's tasks on every replica; admission above counted this one's.
    auto created = co_await deps_.store->create_task_limited(task->record, config_.max_per_user);
    if (!created && created.error().code == store::errc::user_limit) co_return user_busy_error(task->record.user_id);
    if (!created && created.error().code == store::errc::conversation_running) {
      co_return conversation_busy_error(task->record.conversation_id);
    }
    if (!created) co_return created.error();
    held.release();
    live_[task->record.id] = task;
    busy_conversations_.insert(task->record.conversation_id);
    task_ticket ticket{task->record.id, task->record.conversation_id, task_status::queued};
    if (stopping_) {
      // The shutdown began while the task was being stored: it never runs.
      co_await finish_unstarted(context(), task, task_status::interrupted);
      forget(task);
      co_return stopping_error();
    }
    if (running_ < config_.max_concurrent) {
      launch(task);
      ticket.status = task_status::running;
    } else {
      queue_.push_back(task);
      task->events.append("status", {{"status", to_string(task_status::queued)}, {"position", queue_.size()}});
    }
    co_return ticket;
  }

  asio::awaitable<result<task_view>> wait(std::string task_id) override {
    auto self = shared_from_this();
    if (auto it = live_.find(task_id); it != live_.end()) {
      auto task = it->second;
      while (!task->finished) co_await task->events.wait_change(std::chrono::seconds(60));
      co_return view_of(task->record, false);
    }
    co_return co_await view(std::move(task_id), false);
  }

  asio::awaitable<result<task_view>> view(std::string task_id, bool with_transcript) override {
    auto self = shared_from_this();
    if (auto it = live_.find(task_id); it != live_.end()) {
      auto out = view_of(it->second->record, false);
      if (with_transcript) out.transcript = transcript_json(*it->second);
      if (it->second->approvals) out.pending_approvals = it->second->approvals->pending();
      co_return out;
    }
    auto stored = co_await find_stored(std::move(task_id));
    if (!stored) co_return stored.error();
    co_return view_of(*stored, with_transcript);
  }

  asio::awaitable<result<std::vector<task_view>>> list(store::task_query query) override {
    auto self = shared_from_this();
    auto tasks = co_await deps_.store->list_tasks(std::move(query));
    if (!tasks) co_return tasks.error();
    std::vector<task_view> out;
    out.reserve(tasks->size());
    for (const auto& t : *tasks) out.push_back(view_of(t, false));
    co_return out;
  }

  asio::awaitable<result<cancel_outcome>> cancel(std::string task_id) override {
    auto self = shared_from_this();
    auto live = co_await unfinished(task_id, "");
    if (!live) co_return live.error();
    auto task = *live;
    if (auto queued = std::find(queue_.begin(), queue_.end(), task); queued != queue_.end()) {
      queue_.erase(queued);
      co_await finish_unstarted(context(), task, task_status::cancelled);
      forget(task);
      co_return cancel_outcome{task_id, cancel_state::cancelled};
    }
    task->request_stop(stop_reason::cancelled);
    co_return cancel_outcome{task_id, cancel_state::cancelling};
  }

  asio::awaitable<result<approval_view>> decide(std::string task_id, std::string approval_id,
                                                approval_decision decision) override {
    auto self = shared_from_this();
    auto live = co_await unfinished(task_id, "; its approvals ended with it");
    if (!live) co_return live.error();
    auto task = *live;
    if (!task->approvals) {
      co_return make_error(agent::errc::approval_not_found, fmt::format("this task has no approval '{}'", approval_id));
    }
    co_return task->approvals->decide(approval_id, decision);
  }

  asio::awaitable<result<std::shared_ptr<task_event_stream>>> events(std::string task_id,
                                                                     std::int64_t after_seq) override {
    auto self = shared_from_this();
    if (auto it = live_.find(task_id); it != live_.end()) co_return live_event_stream(it->second, after_seq);
    auto stored = co_await find_stored(task_id);
    if (!stored) co_return stored.error();
    // Unfinished but not live here: it runs on another replica, its events arrive through the store.
    // One that ended a moment ago is followed too: its owner stores the final
    // status just before its last events, which may not be stored yet.
    const bool just_ended =
        store::is_terminal(stored->status) && clock_.epoch_ms() - stored->finished_ms < follow_after_end.count();
    std::shared_ptr<change_waiter> follow;
    if (deps_.store->shared() && (!store::is_terminal(stored->status) || just_ended)) {
      follow = changes_->follow(task_id);
    }
    co_return stored_event_stream(deps_.store, std::move(task_id), after_seq, std::move(follow));
  }

  asio::awaitable<void> shutdown(std::chrono::milliseconds grace) override {
    auto self = shared_from_this();
    stopping_ = true;
    auto queued = std::move(queue_);
    queue_.clear();
    for (auto& task : queued) {
      co_await finish_unstarted(context(), task, task_status::interrupted);
      forget(task);
    }
    for (auto& [id, task] : live_) task->request_stop(stop_reason::interrupted);
    // ended() cancels the timer when the last task has ended.
    auto timer = clock_.make_timer(executor_);
    timer->expires_at(clock_.steady_now() + grace);
    all_ended_ = timer.get();
    while (running_ > 0) {
      bool expired = co_await timer->wait();
      if (expired) break;  // the grace period is over
    }
    all_ended_ = nullptr;
    if (running_ > 0) core::log_warn("{} task(s) still ending after the grace period", running_);
  }

  agent_stats stats() const override { return {running_, queue_.size()}; }

 private:
  // A submit between its admission and the task's creation in the store:
  // counted against the limits, so overlapping submits see each other.
  class reservation {
   public:
    reservation(agent_manager_impl& m, const task_request& r) : m_(m), user_(r.user_id) {
      ++m_.admitting_;
      ++m_.admitting_by_user_[user_];
    }
    // The conversation the task continues, once it is known to be the user's.
    void hold_conversation(const std::string& id) {
      conversation_ = id;
      m_.busy_conversations_.insert(id);
    }
    ~reservation() { release(); }
    reservation(const reservation&) = delete;
    reservation& operator=(const reservation&) = delete;
    // The task is live now (or the submit failed): its own entries count instead.
    void release() {
      if (released_) return;
      released_ = true;
      --m_.admitting_;
      if (--m_.admitting_by_user_[user_] == 0) m_.admitting_by_user_.erase(user_);
      if (conversation_) m_.busy_conversations_.erase(*conversation_);
    }

   private:
    agent_manager_impl& m_;
    std::string user_;
    std::optional<std::string> conversation_;
    bool released_ = false;
  };

  loop_context context() const { return {executor_, deps_, config_, clock_}; }

  error stopping_error() const {
    return make_error(agent::errc::stopping, "the server is shutting down and takes no new tasks",
                      "retry against another instance or after the restart");
  }

  // The limits, checked before anything is stored.
  std::optional<error> admission(const task_request& request) const {
    if (stopping_) return stopping_error();
    if (count_of_user(request.user_id) >= config_.max_per_user) return user_busy_error(request.user_id);
    if (running_ + queue_.size() + admitting_ >= config_.max_concurrent + config_.queue_size) {
      return make_error(
          agent::errc::agent_busy,
          fmt::format("{} tasks are running and {} are queued, the most this server takes", running_, queue_.size()),
          "retry later");
    }
    return std::nullopt;
  }

  static error conversation_busy_error(const std::string& conversation_id) {
    return make_error(agent::errc::conversation_busy,
                      fmt::format("a task of conversation '{}' is still running", conversation_id),
                      "wait for it to end, then send the follow-up");
  }

  error user_busy_error(const std::string& user_id) const {
    return make_error(agent::errc::user_busy,
                      fmt::format("user '{}' already has {} task(s) running or queued", user_id, config_.max_per_user),
                      "wait for one to finish (GET /tasks/{id}), or cancel one");
  }

  // The live task that has not ended; else task_elsewhere (it runs on another
  // replica), task_finished (with `more` after the status) or task_not_found.
  asio::awaitable<result<std::shared_ptr<live_task>>> unfinished(const std::string& task_id, std::string_view more) {
    if (auto it = live_.find(task_id); it != live_.end() && !it->second->finished) co_return it->second;
    auto stored = co_await find_stored(task_id);
    if (!stored) co_return stored.error();
    if (!store::is_terminal(stored->status) && stored->owner != config_.owner) {
      co_return make_error(agent::errc::task_elsewhere,
                           fmt::format("task '{}' runs on replica '{}'", task_id, stored->owner),
                           "send this request to that replica (route by the task's owner, see docs/DEPLOYMENT.md)");
    }
    co_return make_error(agent::errc::task_finished,
                         fmt::format("task '{}' has already ended ({}){}", task_id, to_string(stored->status), more));
  }

  asio::awaitable<result<store::task_record>> find_stored(std::string task_id) {
    auto stored = co_await deps_.store->get_task(task_id);
    if (!stored) co_return stored.error();
    if (!*stored) co_return no_such_task(task_id);
    co_return std::move(**stored);
  }

  std::size_t count_of_user(const std::string& user_id) const {
    std::size_t n = 0;
    for (const auto& [id, task] : live_) n += task->record.user_id == user_id && !task->finished ? 1 : 0;
    if (auto it = admitting_by_user_.find(user_id); it != admitting_by_user_.end()) n += it->second;
    return n;
  }

  asio::awaitable<result<conversation_start>> open_conversation(const task_request& request) {
    conversation_start out;
    out.created_ms = clock_.epoch_ms();
    if (!request.conversation_id) {
      out.id = core::make_id("conv_");
      co_return out;
    }
    out.id = *request.conversation_id;
    auto stored = co_await deps_.store->get_conversation(out.id);
    if (!stored) co_return stored.error();
    // Another user's conversation is answered like a missing one, so ids cannot be probed.
    if (!*stored || (*stored)->user_id != request.user_id) {
      co_return make_error(agent::errc::conversation_not_found, fmt::format("there is no conversation '{}'", out.id),
                           "leave out conversationId to start one; every task's answer carries its conversationId");
    }
    for (const auto& m : (*stored)->messages) {
      auto message = llm::message_from_json(m);
      if (!message) co_return make_error(store::errc::corrupt, "a stored message of the conversation is unreadable");
      out.messages.push_back(std::move(*message));
    }
    auto opened = deps_.sealer ? deps_.sealer->open((*stored)->vault) : result<nlohmann::json>((*stored)->vault);
    if (!opened) co_return opened.error();
    auto vault = pii::pii_vault::from_json(*opened);
    if (!vault) co_return vault.error();
    out.vault = std::make_shared<pii::pii_vault>(std::move(*vault));
    out.created_ms = (*stored)->created_ms;
    co_return out;
  }

  std::shared_ptr<live_task> make_task(task_request request, conversation_start conversation) {
    auto id = core::make_id("task_");
    auto task = std::make_shared<live_task>(executor_, clock_, id,
                                            [store = deps_.store, executor = executor_](const store::event_record& e) {
                                              auto save = save_event(store, e);  // a local: see run_blocking.hpp
                                              core::spawn_logged(executor, std::move(save), "saving a task event");
                                            });
    auto& r = task->record;
    r.id = id;
    r.user_id = request.user_id;
    r.key_id = request.key_id;
    r.conversation_id = conversation.id;
    r.task = request.task;
    r.mode = request.mode;
    r.status = task_status::queued;
    r.created_ms = clock_.epoch_ms();
    r.owner = config_.owner;
    r.lease_until_ms = r.created_ms + config_.lease.count();
    task->restore_pii = request.restore_pii;
    task->language = request.language.value_or(config_.language);
    r.language = std::string(sandbox::language_name(task->language));
    task->conversation_created_ms = conversation.created_ms;
    start_task_span(*task, request.trace);
    task->vault = conversation.vault;
    // The task's own guard: maxCallsPerTask counts this task's calls, across its sandboxes.
    task->filter = deps_.filters->make(task->vault, {request.user_id, request.admin});
    // A call the policy asks about waits for POST /tasks/{id}/approvals/{id}.
    attach_approvals(task, clock_, config_.approval_timeout,
                     [store = deps_.store, executor = executor_](const store::task_record& now) {
                       auto save = save_status(store, now);  // a local: see run_blocking.hpp
                       core::spawn_logged(executor, std::move(save), "saving a task's status");
                     });
    task->transcript.emplace(deps_.censor, task->vault, std::move(conversation.messages));
    // The caller's text is censored too: the LLM sees tokens, the tools get the values.
    task->transcript->add_user(task->transcript->from_outside(request.task));
    return task;
  }

  // The GenAI conventions' agent invocation: ids and the language, never the
  // task's text or the user (either may be personal data).
  static void start_task_span(live_task& task, const telemetry::span_parent& parent) {
    task.span = parent.child("invoke_agent mcp-harness");
    task.record.trace_id = task.span.context().trace_id;
    if (!task.span.recording()) return;
    task.span.set("gen_ai.operation.name", "invoke_agent");
    task.span.set("gen_ai.agent.name", "mcp-harness");
    task.span.set("gen_ai.conversation.id", task.record.conversation_id);
    task.span.set("harness.task.id", task.record.id);
    task.span.set("harness.task.language", task.record.language);
  }

  static asio::awaitable<void> save_status(std::shared_ptr<store::task_store> store, store::task_record r) {
    auto saved = co_await store->update_task(r);
    if (!saved) core::log_warn("the status of task {} not saved: {}", r.id, saved.error().describe());
  }

  // Events are written in the background, in order (the store completes its
  // calls in the order they were made); the task stored first.
  static asio::awaitable<void> save_event(std::shared_ptr<store::task_store> store, store::event_record e) {
    auto seq = e.seq;
    auto task_id = e.task_id;
    auto saved = co_await store->append_event(std::move(e));
    if (!saved) core::log_warn("event {} of task {} not saved: {}", seq, task_id, saved.error().describe());
  }

  void launch(std::shared_ptr<live_task> task) {
    ++running_;
    auto run = run_task(context(), task);  // a local: see run_blocking.hpp
    asio::co_spawn(executor_, std::move(run), [self = shared_from_this(), task](std::exception_ptr failure) {
      if (failure) core::log_spawn_exception("task " + task->record.id, failure);
      self->ended(task);
    });
  }

  void ended(const std::shared_ptr<live_task>& task) {
    --running_;
    forget(task);
    while (!queue_.empty() && running_ < config_.max_concurrent && !stopping_) {
      auto next = queue_.front();
      queue_.pop_front();
      launch(next);
    }
    if (running_ == 0 && all_ended_) all_ended_->cancel();
  }

  // Subscribers keep their own reference: the task's events outlive this.
  void forget(const std::shared_ptr<live_task>& task) {
    busy_conversations_.erase(task->record.conversation_id);
    live_.erase(task->record.id);
  }

  asio::any_io_executor executor_;
  agent_dependencies deps_;
  agent_config config_;
  core::clock& clock_;
  std::shared_ptr<task_changes> changes_;  // wakes streams of tasks on other replicas
  std::map<std::string, std::shared_ptr<live_task>> live_;
  std::deque<std::shared_ptr<live_task>> queue_;
  std::set<std::string> busy_conversations_;
  std::size_t running_ = 0;
  std::size_t admitting_ = 0;                             // submits between admission and creation
  std::map<std::string, std::size_t> admitting_by_user_;  // the same, per user
  core::timer* all_ended_ = nullptr;                      // the shutdown's grace timer, while it waits
  bool stopping_ = false;
};

}  // namespace

error no_such_task(std::string_view task_id) {
  return make_error(store::errc::task_not_found, fmt::format("there is no task '{}'", task_id));
}

std::shared_ptr<agent_manager> create_agent_manager(const asio::any_io_executor& executor, agent_dependencies deps,
                                                    agent_config config, core::clock& clock) {
  auto manager = std::make_shared<agent_manager_impl>(executor, std::move(deps), std::move(config), clock);
  manager->follow_other_replicas();
  return manager;
}

}  // namespace harness::agent
