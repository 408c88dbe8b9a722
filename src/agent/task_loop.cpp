#include "task_loop.hpp"

#include <algorithm>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <fmt/format.h>

#include "harness/agent/observation.hpp"
#include "harness/core/logging.hpp"
#include "harness/llm/provider.hpp"
#include "harness/pii/pii_censor.hpp"
#include "task_record.hpp"

namespace harness::agent {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

// How far past the task's deadline the LLM call's own deadline lies (see ask_llm).
constexpr std::chrono::milliseconds deadline_slack{250};

struct loop_end {
  std::string status;  // succeeded, failed, cancelled, timed_out, interrupted, max_turns, budget_exceeded
  json error;          // {"code","message","hint"?} or null
  std::string answer;  // the final text (tokenized), for succeeded
};

json error_json(const harness::error& e) {
  json out{{"code", e.code}, {"message", e.message}};
  if (!e.hint.empty()) out["hint"] = e.hint;
  return out;
}

class task_run {
 public:
  task_run(loop_context context, std::shared_ptr<live_task> task) : ctx_(context), task_(std::move(task)) {}

  asio::awaitable<void> run() {
    auto inputs = prompt_for();
    if (ctx_.deps.files) {
      inputs.skills = co_await blocking([&] { return ctx_.deps.files->skills(task_->record.user_id); });
    }
    task_->system_prompt = system_prompt(inputs);
    start();
    loop_end end;
    try {
      end = co_await turns();
    } catch (const std::exception& e) {
      core::log_error("task {} failed unexpectedly: {}", task_->record.id, e.what());
      end = {"failed", error_json(make_error("internal_error", "the task failed inside the server", "see the server log")),
             {}};
    }
    co_await finish(std::move(end));
  }

 private:
  void start() {
    auto& record = task_->record;
    record.status = "running";
    record.started_ms = now_ms();
    task_->started = clock_type::now();
    task_->deadline = task_->started + ctx_.config.task_timeout;
    persist();
    task_->events.append("status", {{"status", "running"}});
    // The wall-clock limit: stops whatever is in flight when it passes.
    task_->deadline_timer.expires_at(task_->deadline);
    task_->deadline_timer.async_wait([task = task_](const boost::system::error_code& ec) {
      if (!ec) task->request_stop("timed_out");
    });
  }

  // Runs blocking work (the files of skills and workspaces) on the thread
  // pool and resumes here, on the task's executor.
  template <class F>
  asio::awaitable<std::invoke_result_t<F>> blocking(F work) {
    using value = std::invoke_result_t<F>;
    if (!ctx_.deps.blocking) co_return work();
    // A named local, not a temporary in the co_await expression (GCC 12
    // destroys those twice).
    auto run = [work = std::move(work)]() -> asio::awaitable<value> { co_return work(); };
    auto out = co_await asio::co_spawn(ctx_.deps.blocking, std::move(run), asio::use_awaitable);
    co_return out;
  }

  // Everything but the skills (which come from the disk, on the thread pool).
  prompt_inputs prompt_for() const {
    prompt_inputs in;
    if (ctx_.deps.servers) in.servers = ctx_.deps.servers();
    in.max_turns = ctx_.config.max_turns;
    in.observation_max_chars = ctx_.config.observation_max_chars;
    in.exec_timeout_ms = static_cast<long>(ctx_.config.exec_timeout.count());
    return in;
  }

  std::optional<loop_end> stopped() const {
    const auto& why = task_->stop_reason;
    if (why.empty()) return std::nullopt;
    if (why == "cancelled") {
      return loop_end{"cancelled", error_json(make_error("cancelled", "the task was cancelled (DELETE /tasks/{id})")), {}};
    }
    if (why == "timed_out") {
      return loop_end{"timed_out",
                      error_json(make_error("task_timeout",
                                            fmt::format("the task ran past its limit of {} ms",
                                                        ctx_.config.task_timeout.count()),
                                            "raise AGENT_TASK_TIMEOUT_MS, or ask for less in one task")),
                      {}};
    }
    return loop_end{"interrupted", error_json(make_error("interrupted", "the server shut down while the task ran",
                                                          "submit the task again")),
                    {}};
  }

  asio::awaitable<loop_end> turns() {
    for (int turn = 1;; ++turn) {
      if (auto stop = stopped()) co_return *stop;
      if (fatal_) co_return loop_end{"failed", *fatal_, {}};
      if (turn > ctx_.config.max_turns) {
        co_return loop_end{"max_turns",
                           error_json(make_error("max_turns",
                                                 fmt::format("the task used its {} turns without a final answer",
                                                             ctx_.config.max_turns),
                                                 "raise AGENT_MAX_TURNS, or split the task")),
                           {}};
      }
      if (tokens_used() > ctx_.config.token_budget) {
        co_return loop_end{"budget_exceeded",
                           error_json(make_error("budget_exceeded",
                                                 fmt::format("the task used {} tokens; its budget is {}",
                                                             tokens_used(), ctx_.config.token_budget),
                                                 "raise AGENT_TOKEN_BUDGET, or ask for less in one task")),
                           {}};
      }
      task_->record.turns = turn;
      task_->events.append("llm_start", {{"turn", turn}});
      auto answer = co_await ask_llm();
      // A late timer (a busy machine) still counts the call as cut by the limit.
      if (!answer && clock_type::now() >= task_->deadline) task_->request_stop("timed_out");
      if (auto stop = stopped()) co_return *stop;
      if (!answer) {
        task_->events.append("error", error_json(answer.error()));
        co_return loop_end{"failed", error_json(answer.error()), {}};
      }
      account(*answer, turn);
      llm::message assistant;
      assistant.role = llm::message_role::assistant;
      assistant.text = answer->text;
      assistant.tool_calls = answer->tool_calls;
      task_->messages.push_back(assistant);
      if (answer->tool_calls.empty()) co_return loop_end{"succeeded", nullptr, answer->text};
      for (const auto& call : answer->tool_calls) {
        // Every call gets its answer, even after a stop, so the transcript stays well-formed.
        auto result_message = co_await run_call(call, turn);
        task_->messages.push_back(std::move(result_message));
      }
    }
  }

  std::int64_t tokens_used() const { return task_->record.input_tokens + task_->record.output_tokens; }

  asio::awaitable<result<llm::llm_turn>> ask_llm() {
    llm::llm_request request;
    llm::message system;
    system.role = llm::message_role::system;
    system.text = task_->system_prompt;
    request.messages.push_back(std::move(system));
    request.messages.insert(request.messages.end(), task_->messages.begin(), task_->messages.end());
    request.tools.push_back(llm::execute_code_tool());
    // The task's own timer owns the wall-clock limit; the provider's deadline
    // is a backstop just after it, so a call cut by the limit ends as
    // timed_out rather than racing it as an LLM timeout.
    request.deadline = task_->deadline + deadline_slack;
    task_->llm_in_flight = true;
    // Spawned with the task's cancellation slot, so DELETE /tasks/{id} or the
    // deadline aborts the HTTP transfer (the provider answers "cancelled").
    auto call = ctx_.deps.llm->complete(std::move(request));  // a local: see blocking()
    auto answer = co_await asio::co_spawn(ctx_.executor, std::move(call),
                                          asio::bind_cancellation_slot(task_->llm_cancel.slot(), asio::use_awaitable));
    task_->llm_in_flight = false;
    task_->llm_cancel.slot().clear();
    co_return answer;
  }

  void account(const llm::llm_turn& answer, int turn) {
    auto& record = task_->record;
    record.input_tokens += answer.usage.input_tokens;
    record.output_tokens += answer.usage.output_tokens;
    auto ledger = ctx_.deps.store->record_usage(record.user_id, record.id, answer.usage.input_tokens,
                                                answer.usage.output_tokens, now_ms());
    if (!ledger) core::log_warn("task {}: usage not recorded: {}", record.id, ledger.error().describe());
    task_->events.append("llm_end", {{"turn", turn},
                                     {"usage", {{"inputTokens", answer.usage.input_tokens},
                                                {"outputTokens", answer.usage.output_tokens}}},
                                     {"stopReason", answer.stop_reason},
                                     {"toolCalls", answer.tool_calls.size()},
                                     {"text", answer.text}});
  }

  asio::awaitable<llm::message> run_call(const llm::tool_call& call, int turn) {
    llm::message out;
    out.role = llm::message_role::tool;
    out.tool_call_id = call.id;
    out.from_text = call.from_text;
    std::string problem;
    if (call.name != llm::execute_code_tool().name) {
      problem = "there is no tool '" + call.name + "'; the only tool is execute_code {\"code\": \"...\"}";
    } else if (!call.arguments.is_object() || !call.arguments.contains("code") || !call.arguments["code"].is_string()) {
      problem = "execute_code needs a JSON object {\"code\": \"<JavaScript>\"}";
    } else if (!task_->stop_reason.empty() || fatal_) {
      problem = "not run: the task is ending";
    }
    if (!problem.empty()) {
      out.text = problem;
      out.is_error = true;
      task_->events.append("observation", {{"turn", turn}, {"text", problem}, {"isError", true}, {"truncated", false}});
      co_return out;
    }
    auto code = call.arguments["code"].get<std::string>();
    task_->events.append("code", {{"turn", turn}, {"code", code}});
    auto seen = co_await execute(std::move(code), turn);
    out.text = std::move(seen.text);
    out.is_error = seen.is_error;
    co_return out;
  }

  std::string censor(const std::string& text) const {
    if (!ctx_.deps.censor) return text;
    // keep_issued: tokens the vault already issued stay as they are.
    return ctx_.deps.censor->tokenize(text, *task_->vault, pii::token_policy::keep_issued);
  }

  asio::awaitable<result<bool>> ensure_sandbox() {
    if (task_->sandbox) co_return false;
    execution::sandbox_session_options options;
    options.id = task_->record.id;
    options.limits = ctx_.config.limits;
    options.metrics = ctx_.deps.metrics;
    if (ctx_.deps.files) {
      options.files = co_await blocking([&] { return ctx_.deps.files->init_files(task_->record.user_id, task_->record.id); });
    }
    auto opened = co_await execution::sandbox_session::open(ctx_.executor, *ctx_.deps.pool, *ctx_.deps.tools,
                                                            task_->filter, std::move(options));
    if (!opened) co_return opened.error();
    task_->sandbox = std::move(*opened);
    task_->events.append("sandbox", {{"warm", task_->sandbox->warm()}});
    // A stop requested while the sandbox started must reach it too.
    if (!task_->stop_reason.empty()) task_->sandbox->kill();
    co_return true;
  }

  asio::awaitable<observation> execute(std::string code, int turn) {
    std::string note;
    if (!task_->sandbox && task_->sandbox_lost) {
      note = "the sandbox of an earlier block was stopped (" + task_->sandbox_loss +
             "); this block ran in a fresh one: variables from earlier blocks are gone, files in /workspace and "
             "/skills are kept";
    }
    auto fresh = co_await ensure_sandbox();
    if (!fresh) {
      fatal_ = error_json(fresh.error());
      task_->events.append("error", *fatal_);
      observation failed;
      failed.text = "error: no sandbox could be started: " + fresh.error().describe();
      failed.is_error = true;
      co_return failed;
    }
    auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(task_->deadline - clock_type::now());
    auto timeout = std::clamp(remaining, std::chrono::milliseconds(1), ctx_.config.exec_timeout);
    auto outcome = co_await task_->sandbox->exec(std::move(code), timeout);

    for (const auto& log : outcome.logs) {
      task_->events.append("log", {{"turn", turn}, {"level", log.level}, {"text", censor(log.text)}});
    }
    for (const auto& call : outcome.tool_calls) {
      task_->events.append("tool_call", {{"turn", turn}, {"name", call.name}, {"ms", call.ms}, {"ok", call.ok}});
    }
    json files_report = co_await apply_files(outcome.files);
    bool can_save = !task_->sandbox->broken() && ctx_.deps.files;
    if (task_->sandbox->broken()) co_await drop_sandbox(outcome);

    std::string full_path = fmt::format("/workspace/observations/turn-{}.txt", turn);
    auto seen = make_observation({.outcome = outcome,
                                  .files_report = files_report,
                                  .sandbox_note = note,
                                  .max_chars = ctx_.config.observation_max_chars,
                                  .full_text_path = can_save ? full_path : std::string("(not kept)")});
    seen.text = censor(seen.text);
    if (seen.truncated && can_save) co_await save_full_text(full_path, censor(seen.full_text));
    task_->events.append("observation",
                         {{"turn", turn}, {"text", seen.text}, {"isError", seen.is_error}, {"truncated", seen.truncated}});
    co_return seen;
  }

  asio::awaitable<json> apply_files(const std::vector<bridge::file_change>& files) {
    if (!ctx_.deps.files || files.empty()) co_return nullptr;
    auto report =
        co_await blocking([&] { return ctx_.deps.files->apply(task_->record.user_id, task_->record.id, files); });
    task_->events.append("files", report);
    co_return report;
  }

  asio::awaitable<void> drop_sandbox(const bridge::exec_result& outcome) {
    task_->sandbox_lost = true;
    task_->sandbox_loss = outcome.error.value("name", std::string("SandboxError")) + ": " +
                          outcome.error.value("message", std::string("the sandbox stopped"));
    auto sandbox = std::move(task_->sandbox);
    co_await sandbox->close();
  }

  // Writes an over-long observation into the sandbox's /workspace (so code can
  // read it) through a small block of our own; its file report writes it back
  // to the host workspace like any other file.
  asio::awaitable<void> save_full_text(const std::string& path, const std::string& text) {
    std::string code = "await fs.mkdir('/workspace/observations', {recursive: true});\nawait fs.writeFile(" +
                       json(path).dump() + ", " + json(text).dump(-1, ' ', false, json::error_handler_t::replace) +
                       ");";
    auto saved = co_await task_->sandbox->exec(std::move(code), std::chrono::seconds(5));
    if (!saved.ok) core::log_warn("task {}: observation not saved: {}", task_->record.id, saved.error.dump());
    co_await apply_files(saved.files);
    if (task_->sandbox->broken()) co_await drop_sandbox(saved);
  }

  asio::awaitable<void> finish(loop_end end) {
    task_->deadline_timer.cancel();
    if (task_->sandbox) {
      auto sandbox = std::move(task_->sandbox);
      co_await sandbox->close();
    }
    auto& record = task_->record;
    record.status = end.status;
    record.error = end.error;
    if (end.status == "succeeded") {
      record.result = task_->restore_pii ? pii::detokenize(end.answer, *task_->vault) : end.answer;
    }
    record.finished_ms = now_ms();
    record.transcript = transcript_json(*task_);
    save_conversation(ctx_, *task_);
    persist();
    if (end.status == "succeeded") task_->events.append("final", {{"result", record.result}});
    json summary = task_summary(record);
    task_->events.append("end", summary);
    task_->events.close();
    task_->finished = true;
    if (ctx_.deps.on_task_end) ctx_.deps.on_task_end(end.status);
    core::log_info("task {} ended: {} after {} turn(s), {} tokens", record.id, end.status, record.turns, tokens_used());
  }

  void persist() {
    auto saved = ctx_.deps.store->update_task(task_->record);
    if (!saved) core::log_error("task {} not saved: {}", task_->record.id, saved.error().describe());
  }

  loop_context ctx_;
  std::shared_ptr<live_task> task_;
  std::optional<json> fatal_;  // a failure of ours (no sandbox) that ends the task
};

}  // namespace

asio::awaitable<void> run_task(loop_context context, std::shared_ptr<live_task> task) {
  task_run run(context, std::move(task));
  co_await run.run();
}

void finish_unstarted(const loop_context& context, live_task& task, const std::string& status) {
  auto& record = task.record;
  record.status = status;
  record.error = status == "cancelled"
                     ? error_json(make_error("cancelled", "the task was cancelled before it started"))
                     : error_json(make_error("interrupted", "the server shut down before the task started",
                                             "submit the task again"));
  record.finished_ms = now_ms();
  record.transcript = transcript_json(task);
  auto saved = context.deps.store->update_task(record);
  if (!saved) core::log_error("task {} not saved: {}", record.id, saved.error().describe());
  task.events.append("end", task_summary(record));
  task.events.close();
  task.finished = true;
  if (context.deps.on_task_end) context.deps.on_task_end(status);
}

}  // namespace harness::agent
