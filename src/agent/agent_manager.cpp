#include "harness/agent/agent_manager.hpp"

#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "event_streams.hpp"
#include "harness/agent/errors.hpp"
#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/pii/pii_censor.hpp"
#include "harness/store/errors.hpp"
#include "task_loop.hpp"
#include "task_record.hpp"

namespace harness::agent {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;

// The conversation a task continues (or starts).
struct conversation_start {
  std::string id;
  std::vector<llm::message> messages;
  std::shared_ptr<pii::pii_vault> vault = std::make_shared<pii::pii_vault>();
  std::int64_t created_ms = 0;
};

class agent_manager_impl final : public agent_manager, public std::enable_shared_from_this<agent_manager_impl> {
 public:
  agent_manager_impl(const asio::any_io_executor& executor, agent_dependencies deps, agent_config config)
      : executor_(executor), deps_(std::move(deps)), config_(config) {}

  result<task_ticket> submit(task_request request) override {
    if (stopping_) {
      return make_error(agent::errc::stopping, "the server is shutting down and takes no new tasks",
                        "retry against another instance or after the restart");
    }
    auto conversation = open_conversation(request);
    if (!conversation) return conversation.error();
    if (count_of_user(request.user_id) >= config_.max_per_user) {
      return make_error(
          agent::errc::user_busy,
          fmt::format("user '{}' already has {} task(s) running or queued", request.user_id, config_.max_per_user),
          "wait for one to finish (GET /tasks/{id}), or cancel one");
    }
    if (running_ >= config_.max_concurrent && queue_.size() >= config_.queue_size) {
      return make_error(
          agent::errc::agent_busy,
          fmt::format("{} tasks are running and {} are queued, the most this server takes", running_, queue_.size()),
          "retry later");
    }
    auto task = make_task(std::move(request), std::move(*conversation));
    if (auto created = deps_.store->create_task(task->record); !created) return created.error();
    live_[task->record.id] = task;
    busy_conversations_.insert(task->record.conversation_id);
    task_ticket ticket{task->record.id, task->record.conversation_id, "queued"};
    if (running_ < config_.max_concurrent) {
      launch(task);
      ticket.status = "running";
    } else {
      queue_.push_back(task);
      task->events.append("status", {{"status", "queued"}, {"position", queue_.size()}});
    }
    return ticket;
  }

  asio::awaitable<result<json>> wait(std::string task_id) override {
    auto self = shared_from_this();
    if (auto it = live_.find(task_id); it != live_.end()) {
      auto task = it->second;
      while (!task->finished) co_await task->events.wait_change(std::chrono::seconds(60));
      co_return task_view(task->record, false);
    }
    co_return view(task_id, false);
  }

  result<json> view(const std::string& task_id, bool with_transcript) override {
    if (auto it = live_.find(task_id); it != live_.end()) {
      auto record = it->second->record;
      if (with_transcript) record.transcript = transcript_json(*it->second);
      return task_view(record, with_transcript);
    }
    auto stored = find_stored(task_id);
    if (!stored) return stored.error();
    return task_view(*stored, with_transcript);
  }

  result<json> list(const store::task_query& query) override {
    auto tasks = deps_.store->list_tasks(query);
    if (!tasks) return tasks.error();
    json out = json::array();
    for (const auto& t : *tasks) out.push_back(task_view(t, false));
    return json{{"tasks", std::move(out)}};
  }

  result<json> cancel(const std::string& task_id) override {
    auto it = live_.find(task_id);
    if (it == live_.end() || it->second->finished) {
      auto stored = find_stored(task_id);
      if (!stored) return stored.error();
      return make_error(agent::errc::task_finished,
                        fmt::format("task '{}' has already ended ({})", task_id, stored->status));
    }
    auto task = it->second;
    if (auto queued = std::find(queue_.begin(), queue_.end(), task); queued != queue_.end()) {
      queue_.erase(queued);
      finish_unstarted(context(), *task, "cancelled");
      forget(task);
      return json{{"taskId", task_id}, {"status", "cancelled"}};
    }
    task->request_stop("cancelled");
    return json{{"taskId", task_id}, {"status", "cancelling"}};
  }

  result<std::shared_ptr<task_event_stream>> events(const std::string& task_id, std::int64_t after_seq) override {
    if (auto it = live_.find(task_id); it != live_.end()) return live_event_stream(it->second, after_seq);
    auto stored = find_stored(task_id);
    if (!stored) return stored.error();
    return stored_event_stream(deps_.store, task_id, after_seq);
  }

  asio::awaitable<void> shutdown(std::chrono::milliseconds grace) override {
    auto self = shared_from_this();
    stopping_ = true;
    auto queued = std::move(queue_);
    queue_.clear();
    for (auto& task : queued) {
      finish_unstarted(context(), *task, "interrupted");
      forget(task);
    }
    for (auto& [id, task] : live_) task->request_stop("interrupted");
    asio::steady_timer timer(executor_);
    auto until = std::chrono::steady_clock::now() + grace;
    while (running_ > 0 && std::chrono::steady_clock::now() < until) {
      timer.expires_after(std::chrono::milliseconds(50));
      co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    if (running_ > 0) core::log_warn("{} task(s) still ending after the grace period", running_);
  }

  agent_stats stats() const override { return {running_, queue_.size()}; }

 private:
  loop_context context() const { return {executor_, deps_, config_}; }

  result<store::task_record> find_stored(const std::string& task_id) {
    auto stored = deps_.store->get_task(task_id);
    if (!stored) return stored.error();
    if (!*stored) return make_error(store::errc::task_not_found, fmt::format("there is no task '{}'", task_id));
    return std::move(**stored);
  }

  std::size_t count_of_user(const std::string& user_id) const {
    std::size_t n = 0;
    for (const auto& [id, task] : live_) n += task->record.user_id == user_id && !task->finished ? 1 : 0;
    return n;
  }

  result<conversation_start> open_conversation(const task_request& request) {
    conversation_start out;
    out.created_ms = now_ms();
    if (!request.conversation_id) {
      out.id = core::make_id("conv_");
      return out;
    }
    out.id = *request.conversation_id;
    if (busy_conversations_.count(out.id)) {
      return make_error(agent::errc::conversation_busy,
                        fmt::format("a task of conversation '{}' is still running", out.id),
                        "wait for it to end, then send the follow-up");
    }
    auto stored = deps_.store->get_conversation(out.id);
    if (!stored) return stored.error();
    if (!*stored) {
      return make_error(agent::errc::conversation_not_found, fmt::format("there is no conversation '{}'", out.id),
                        "leave out conversationId to start one; every task's answer carries its conversationId");
    }
    if ((*stored)->user_id != request.user_id) {
      return make_error(agent::errc::conversation_forbidden,
                        fmt::format("conversation '{}' belongs to another user", out.id));
    }
    for (const auto& m : (*stored)->messages) {
      auto message = llm::message_from_json(m);
      if (!message) return make_error(store::errc::corrupt, "a stored message of the conversation is unreadable");
      out.messages.push_back(std::move(*message));
    }
    auto vault = pii::pii_vault::from_json((*stored)->vault);
    if (!vault) return vault.error();
    out.vault = std::make_shared<pii::pii_vault>(std::move(*vault));
    out.created_ms = (*stored)->created_ms;
    return out;
  }

  std::shared_ptr<live_task> make_task(task_request request, conversation_start conversation) {
    auto id = core::make_id("task_");
    auto store = deps_.store;
    auto task = std::make_shared<live_task>(executor_, id, [store](const store::event_record& e) {
      auto saved = store->append_event(e);
      if (!saved) core::log_warn("event {} of task {} not saved: {}", e.seq, e.task_id, saved.error().describe());
    });
    auto& r = task->record;
    r.id = id;
    r.user_id = request.user_id;
    r.conversation_id = conversation.id;
    r.task = request.task;
    r.mode = request.mode;
    r.status = "queued";
    r.created_ms = now_ms();
    task->restore_pii = request.restore_pii;
    task->conversation_created_ms = conversation.created_ms;
    task->vault = conversation.vault;
    task->filter = std::make_shared<execution::pii_filter>(
        deps_.censor, task->vault, deps_.metrics ? &execution::pii_detection_counter(*deps_.metrics) : nullptr);
    task->transcript.emplace(deps_.censor, task->vault, std::move(conversation.messages));
    // The caller's text is censored too: the LLM sees tokens, the tools get the values.
    task->transcript->add_user(task->transcript->from_outside(request.task));
    return task;
  }

  void launch(std::shared_ptr<live_task> task) {
    ++running_;
    asio::co_spawn(executor_, run_task(context(), task),
                   [self = shared_from_this(), task](std::exception_ptr) { self->ended(task); });
  }

  void ended(const std::shared_ptr<live_task>& task) {
    --running_;
    forget(task);
    while (!queue_.empty() && running_ < config_.max_concurrent && !stopping_) {
      auto next = queue_.front();
      queue_.pop_front();
      launch(next);
    }
  }

  // Subscribers keep their own reference: the task's events outlive this.
  void forget(const std::shared_ptr<live_task>& task) {
    busy_conversations_.erase(task->record.conversation_id);
    live_.erase(task->record.id);
  }

  asio::any_io_executor executor_;
  agent_dependencies deps_;
  agent_config config_;
  std::map<std::string, std::shared_ptr<live_task>> live_;
  std::deque<std::shared_ptr<live_task>> queue_;
  std::set<std::string> busy_conversations_;
  std::size_t running_ = 0;
  bool stopping_ = false;
};

}  // namespace

std::shared_ptr<agent_manager> create_agent_manager(const asio::any_io_executor& executor, agent_dependencies deps,
                                                    agent_config config) {
  auto interrupted = deps.store->mark_interrupted(now_ms());
  if (!interrupted) {
    core::log_warn("could not mark tasks of an earlier run as interrupted: {}", interrupted.error().describe());
  } else if (*interrupted > 0) {
    core::log_info("{} task(s) of an earlier run were marked interrupted", *interrupted);
  }
  return std::make_shared<agent_manager_impl>(executor, std::move(deps), config);
}

}  // namespace harness::agent
