#include "task_loop.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/agent/errors.hpp"
#include "harness/core/error_json.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/run_blocking.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/llm/provider.hpp"
#include "harness/pii/pii_censor.hpp"
#include "observation.hpp"
#include "task_record.hpp"

namespace harness::agent {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;

// How far past the task's deadline the LLM call's own deadline lies (see ask_llm).
constexpr std::chrono::milliseconds deadline_slack{250};

struct loop_end {
  task_status status = task_status::failed;  // a terminal one
  json error;                                // {"code","message","hint"?} or null
  std::string answer;                        // the final text (tokenized), for succeeded
};

class task_run {
 public:
  task_run(loop_context context, std::shared_ptr<live_task> task) : ctx_(context), task_(std::move(task)) {}

  asio::awaitable<void> run() {
    // The prompt names the connected servers: a task sent right after
    // start-up waits for those still starting (bounded by their start timeout).
    if (ctx_.deps.tools) {
      auto acting = ctx_.deps.tools->acting_for(task_->record.user_id);
      co_await (acting ? *acting : *ctx_.deps.tools).ready();
    }
    auto inputs = prompt_for();
    if (ctx_.deps.files) {
      inputs.skills = co_await blocking([&] { return ctx_.deps.files->skills(task_->record.user_id); });
    }
    task_->transcript->set_system(std::move(inputs));
    co_await start();
    loop_end end;
    try {
      end = co_await turns();
    } catch (const std::exception& e) {
      core::log_error("task {} failed unexpectedly: {}", task_->record.id, e.what());
      end = {
          task_status::failed,
          error_json(make_error(core::errc::internal_error, "the task failed inside the server", "see the server log")),
          {}};
    }
    co_await finish(std::move(end));
  }

 private:
  asio::awaitable<void> start() {
    auto& record = task_->record;
    record.status = task_status::running;
    record.started_ms = ctx_.clock.epoch_ms();
    task_->started = ctx_.clock.steady_now();
    // The wall-clock limit: stops whatever is in flight when it passes.
    task_->start_deadline(task_->started + ctx_.config.task_timeout);
    task_->events.append("status", {{"status", to_string(task_status::running)}});
    co_await persist();
  }

  // Blocking work (the skills listed in the prompt) on the thread pool.
  template <class F>
  asio::awaitable<std::invoke_result_t<F>> blocking(F work) {
    return core::run_blocking(ctx_.deps.blocking, std::move(work));
  }

  // Everything but the skills (which come from the disk, on the thread pool).
  prompt_inputs prompt_for() const {
    prompt_inputs in;
    if (ctx_.deps.servers) in.servers = ctx_.deps.servers(task_->record.user_id);
    in.max_turns = ctx_.config.max_turns;
    in.observation_max_chars = ctx_.config.observation_max_chars;
    in.exec_timeout_ms = static_cast<long>(ctx_.config.exec_timeout.count());
    in.language = task_->language;
    return in;
  }

  std::optional<loop_end> stopped() const {
    switch (task_->stop) {
      case stop_reason::none:
        return std::nullopt;
      case stop_reason::cancelled:
        return loop_end{task_status::cancelled,
                        error_json(make_error(core::errc::cancelled, "the task was cancelled (DELETE /tasks/{id})")),
                        {}};
      case stop_reason::timed_out:
        return loop_end{
            task_status::timed_out,
            error_json(make_error(agent::errc::task_timeout,
                                  fmt::format("the task ran past its limit of {} ms", ctx_.config.task_timeout.count()),
                                  "raise AGENT_TASK_TIMEOUT_MS, or ask for less in one task")),
            {}};
      case stop_reason::interrupted:
        return loop_end{task_status::interrupted,
                        error_json(make_error(agent::errc::interrupted, "the server shut down while the task ran",
                                              "submit the task again")),
                        {}};
    }
    return std::nullopt;
  }

  asio::awaitable<loop_end> turns() {
    for (int turn = 1;; ++turn) {
      if (auto stop = stopped()) co_return *stop;
      if (fatal_) co_return loop_end{task_status::failed, *fatal_, {}};
      if (turn > ctx_.config.max_turns) {
        co_return loop_end{task_status::max_turns,
                           error_json(make_error(
                               agent::errc::max_turns,
                               fmt::format("the task used its {} turns without a final answer", ctx_.config.max_turns),
                               "raise AGENT_MAX_TURNS, or split the task")),
                           {}};
      }
      if (tokens_used() > ctx_.config.token_budget) {
        co_return loop_end{task_status::budget_exceeded,
                           error_json(make_error(agent::errc::budget_exceeded,
                                                 fmt::format("the task used {} tokens; its budget is {}", tokens_used(),
                                                             ctx_.config.token_budget),
                                                 "raise AGENT_TOKEN_BUDGET, or ask for less in one task")),
                           {}};
      }
      task_->record.turns = turn;
      auto turn_span = task_->span.child("turn");
      turn_span.set("harness.turn", turn);
      turn_trace_ = turn_span.parent();
      task_->events.append("llm_start", {{"turn", turn}});
      auto answer = co_await ask_llm();
      // A late timer (a busy machine) still counts the call as cut by the limit.
      if (!answer && ctx_.clock.steady_now() >= task_->deadline()) task_->request_stop(stop_reason::timed_out);
      if (auto stop = stopped()) co_return *stop;
      if (!answer) {
        task_->events.append("error", error_json(answer.error()));
        co_return loop_end{task_status::failed, error_json(answer.error()), {}};
      }
      co_await account(*answer, turn);
      task_->transcript->add_assistant(*answer);
      if (answer->tool_calls.empty()) co_return loop_end{task_status::succeeded, nullptr, answer->text};
      for (const auto& call : answer->tool_calls) {
        // Every call gets its answer, even after a stop, so the transcript stays well-formed.
        co_await run_call(call, turn);
      }
    }
  }

  // The task's language as the LLM reads it.
  std::string_view language_label() const {
    return task_->language == sandbox::language::python ? "Python" : "JavaScript";
  }

  std::int64_t tokens_used() const { return task_->record.input_tokens + task_->record.output_tokens; }

  asio::awaitable<result<llm::llm_turn>> ask_llm() {
    llm::llm_request request;
    request.messages = task_->transcript->request_messages();
    request.tools.push_back(llm::execute_code_tool(language_label()));
    // The task's own timer owns the wall-clock limit; the provider's deadline
    // is a backstop just after it, so a call cut by the limit ends as
    // timed_out rather than racing it as an LLM timeout. (The provider reads
    // the real steady clock: with a fake clock this backstop means nothing.)
    request.deadline = task_->deadline() + deadline_slack;
    request.trace = turn_trace_;
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

  asio::awaitable<void> account(const llm::llm_turn& answer, int turn) {
    auto& record = task_->record;
    record.input_tokens += answer.usage.input_tokens;
    record.output_tokens += answer.usage.output_tokens;
    auto ledger = co_await ctx_.deps.store->record_usage(record.user_id, record.id, answer.usage.input_tokens,
                                                         answer.usage.output_tokens, ctx_.clock.epoch_ms());
    if (!ledger) core::log_warn("task {}: usage not recorded: {}", record.id, ledger.error().describe());
    task_->events.append(
        "llm_end",
        {{"turn", turn},
         {"usage", {{"inputTokens", answer.usage.input_tokens}, {"outputTokens", answer.usage.output_tokens}}},
         {"stopReason", answer.stop_reason},
         {"toolCalls", answer.tool_calls.size()},
         {"text", answer.text}});
  }

  // Runs one tool call of the model and adds its answer to the transcript.
  asio::awaitable<void> run_call(const llm::tool_call& call, int turn) {
    std::string problem;
    if (call.name != llm::execute_code_tool().name) {
      problem = "there is no tool '" + call.name + "'; the only tool is execute_code {\"code\": \"...\"}";
    } else if (!call.arguments.is_object() || !call.arguments.contains("code") || !call.arguments["code"].is_string()) {
      problem = "execute_code needs a JSON object {\"code\": \"<" + std::string(language_label()) + ">\"}";
    } else if (task_->stop != stop_reason::none || fatal_) {
      problem = "not run: the task is ending";
    }
    if (!problem.empty()) {
      auto text = task_->transcript->from_sandbox(problem);
      task_->events.append("observation",
                           {{"turn", turn}, {"text", text.str()}, {"isError", true}, {"truncated", false}});
      task_->transcript->add_tool_result(call, std::move(text), true);
      co_return;
    }
    auto code = call.arguments["code"].get<std::string>();
    task_->events.append("code", {{"turn", turn}, {"code", code}});
    auto seen = co_await execute(std::move(code), turn);
    task_->transcript->add_tool_result(call, std::move(seen.text), seen.is_error);
  }

  // What the model reads about one block, censored.
  struct block_observation {
    censored_text text;
    bool is_error = false;
  };

  asio::awaitable<result<bool>> ensure_sandbox(const telemetry::span& block) {
    if (task_->sandbox) co_return false;
    auto claim = block.child("sandbox.claim");
    execution::sandbox_session_options options;
    options.id = task_->record.id;
    options.limits = ctx_.config.limits;
    options.limits.record_call_args = true;  // the task's tool_call events show them
    options.metrics = ctx_.deps.metrics;
    options.user_id = task_->record.user_id;
    options.workspace_id = task_->record.id;
    options.files = ctx_.deps.files;
    options.blocking = ctx_.deps.blocking;
    auto& pool = task_->language == sandbox::language::python ? *ctx_.deps.python_pool : *ctx_.deps.pool;
    auto opened = co_await execution::sandbox_session::open(ctx_.executor, ctx_.clock, pool, *ctx_.deps.tools,
                                                            task_->filter, std::move(options));
    if (!opened) {
      claim.fail(opened.error().code.wire_name());
      co_return opened.error();
    }
    task_->sandbox = std::move(*opened);
    claim.set("harness.sandbox.warm", task_->sandbox->warm());
    task_->events.append("sandbox",
                         {{"warm", task_->sandbox->warm()}, {"language", sandbox::language_name(task_->language)}});
    // A stop requested while the sandbox started must reach it too.
    if (task_->stop != stop_reason::none) task_->sandbox->kill();
    co_return true;
  }

  asio::awaitable<block_observation> execute(std::string code, int turn) {
    auto& transcript = *task_->transcript;
    std::string note;
    if (!task_->sandbox && task_->sandbox_lost) {
      note = "the sandbox of an earlier block was stopped (" + task_->sandbox_loss +
             "); this block ran in a fresh one: variables from earlier blocks are gone, files in /workspace and "
             "/skills are kept";
    }
    auto block = turn_trace_.child("execute_code");
    block.set("harness.turn", turn);
    block.set("harness.block.language", std::string(sandbox::language_name(task_->language)));
    if (block.capture_content()) block.set("harness.block.code", transcript.from_sandbox(code).str());
    auto fresh = co_await ensure_sandbox(block);
    if (!fresh) {
      block.fail(fresh.error().code.wire_name());
      fatal_ = error_json(fresh.error());
      task_->events.append("error", *fatal_);
      co_return block_observation{
          transcript.from_sandbox("error: no sandbox could be started: " + fresh.error().describe()), true};
    }
    auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(task_->deadline() - ctx_.clock.steady_now());
    auto timeout = std::clamp(remaining, std::chrono::milliseconds(1), ctx_.config.exec_timeout);
    auto trace = block.parent();  // named: GCC 12 and temporaries in co_await
    auto outcome = co_await task_->sandbox->exec(std::move(code), timeout, std::move(trace));
    block.set("harness.block.tool_calls", outcome.tool_calls.size());
    if (!outcome.ok) block.fail("block_failed");  // the error's name and text come from the code: not set

    for (const auto& log : outcome.logs) {
      task_->events.append("log",
                           {{"turn", turn}, {"level", log.level}, {"text", transcript.from_sandbox(log.text).str()}});
    }
    std::set<std::string> to_connect;  // user-scoped servers the user has not connected their account to
    for (const auto& call : outcome.tool_calls) {
      task_->events.append("tool_call", tool_call_event(call, turn, transcript));
      if (call.error_code == "mcp_needs_authorization") to_connect.insert(call.name.substr(0, call.name.find("__")));
    }
    for (const auto& server : to_connect) {
      // Where the dashboard offers "Connect": the link comes fresh from POST /connections/{server}.
      task_->events.append("needs_authorization",
                           {{"turn", turn}, {"server", server}, {"connect", "POST /connections/" + server}});
    }
    if (!outcome.files_report.is_null())
      task_->events.append("files", transcript.json_from_sandbox(outcome.files_report));
    bool can_save = !task_->sandbox->broken() && ctx_.deps.files;
    if (task_->sandbox->broken()) {
      std::string why =
          outcome.error.value("name", "SandboxError") + ": " + outcome.error.value("message", "the sandbox stopped");
      co_await drop_sandbox(std::move(why));
    }

    std::string full_path = fmt::format("observations/turn-{}.txt", turn);
    // Censored whole, then cut: a cut must not split a value the censor would have found.
    auto full = transcript.from_sandbox(observation_text({.outcome = outcome,
                                                          .sandbox_note = note,
                                                          .max_chars = ctx_.config.observation_max_chars,
                                                          .full_text_path = {}}));
    bool truncated = full.size() > ctx_.config.observation_max_chars;
    auto seen = full.fitted(ctx_.config.observation_max_chars, can_save ? "/workspace/" + full_path : "(not kept)");
    if (truncated && can_save) co_await save_full_text(full_path, full.str());
    task_->events.append("observation",
                         {{"turn", turn}, {"text", seen.str()}, {"isError", !outcome.ok}, {"truncated", truncated}});
    co_return block_observation{std::move(seen), !outcome.ok};
  }

  // `why` goes into the note of the next block, which runs in a fresh sandbox.
  asio::awaitable<void> drop_sandbox(std::string why) {
    task_->sandbox_lost = true;
    task_->sandbox_loss = std::move(why);
    auto sandbox = std::move(task_->sandbox);
    co_await sandbox->close();
  }

  // Keeps an over-long observation whole: in the task's workspace on the host
  // and, through the runtime's own `put` (out of reach of whatever the
  // agent's code named `fs`), in the sandbox's /workspace, where code can read it.
  asio::awaitable<void> save_full_text(const std::string& relative_path, const std::string& text) {
    std::vector<bridge::init_file> files{{"workspace", relative_path, text}};  // a named local: see blocking()
    auto put = co_await task_->sandbox->put(std::move(files), std::chrono::seconds(5));
    if (!put)
      core::log_warn("task {}: observation not put into the sandbox: {}", task_->record.id, put.error().describe());
    if (task_->sandbox->broken()) {
      std::string why = "SandboxError: " + (put ? std::string("the sandbox stopped") : put.error().message);
      co_await drop_sandbox(std::move(why));
    }
  }

  asio::awaitable<void> finish(loop_end end) {
    task_->ending = true;
    task_->stop_deadline();
    if (task_->approvals) task_->approvals->close("the task ended");
    if (task_->sandbox) {
      auto sandbox = std::move(task_->sandbox);
      co_await sandbox->close();
    }
    auto& record = task_->record;
    record.status = end.status;
    record.error = end.error;
    if (end.status == task_status::succeeded) {
      record.result = task_->restore_pii ? pii::detokenize(end.answer, *task_->vault) : end.answer;
    }
    record.finished_ms = ctx_.clock.epoch_ms();
    record.transcript = transcript_json(*task_);
    co_await save_conversation(ctx_, *task_);
    // With STORE_RESULTS=tokenized the store keeps the answer as the LLM wrote
    // it (tokens); the live record and events, which the caller reads now, keep the values.
    const bool succeeded = end.status == task_status::succeeded;
    const bool tokens_at_rest = ctx_.config.store_tokenized_results && succeeded && task_->restore_pii;
    store::task_record stored = tokens_at_rest ? record : store::task_record();
    if (tokens_at_rest) stored.result = end.answer;
    co_await persist(tokens_at_rest ? &stored : nullptr);
    if (succeeded) {
      task_->events.append("final", {{"result", record.result}},
                           tokens_at_rest ? json{{"result", end.answer}} : json());
    }
    json summary = task_summary(record);
    task_->events.append("end", summary, tokens_at_rest ? task_summary(stored) : json());
    task_->events.close();
    task_->finished = true;
    if (ctx_.deps.on_task_end) ctx_.deps.on_task_end(end.status);
    end_task_span(end);
    core::log_info("task {} ended: {} after {} turn(s), {} tokens{}{}", record.id, to_string(end.status), record.turns,
                   tokens_used(), record.trace_id.empty() ? "" : " trace=", record.trace_id);
  }

  void end_task_span(const loop_end& end) {
    auto& span = task_->span;
    span.set("harness.task.status", std::string(to_string(end.status)));
    span.set("harness.task.turns", task_->record.turns);
    span.set("gen_ai.usage.input_tokens", task_->record.input_tokens);
    span.set("gen_ai.usage.output_tokens", task_->record.output_tokens);
    if (end.status != task_status::succeeded) {
      span.fail(end.error.is_object() ? end.error.value("code", std::string(to_string(end.status)))
                                      : std::string(to_string(end.status)));
    }
    span.end();
  }

  // Writes the task's record, or `instead` of it (the same task as the store keeps it).
  asio::awaitable<void> persist(const store::task_record* instead = nullptr) {
    const auto& record = instead ? *instead : task_->record;
    auto saved = co_await ctx_.deps.store->update_task(record);
    if (!saved) core::log_error("task {} not saved: {}", record.id, saved.error().describe());
  }

  loop_context ctx_;
  std::shared_ptr<live_task> task_;
  std::optional<json> fatal_;          // a failure of ours (no sandbox) that ends the task
  telemetry::span_parent turn_trace_;  // the running turn's span: the LLM call and the blocks hang below it
};

}  // namespace

asio::awaitable<void> run_task(loop_context context, std::shared_ptr<live_task> task) {
  task_run run(context, std::move(task));
  co_await run.run();
}

asio::awaitable<void> finish_unstarted(loop_context context, std::shared_ptr<live_task> task, task_status status) {
  auto& record = task->record;
  record.status = status;
  record.error = status == task_status::cancelled
                     ? error_json(make_error(core::errc::cancelled, "the task was cancelled before it started"))
                     : error_json(make_error(agent::errc::interrupted, "the server shut down before the task started",
                                             "submit the task again"));
  record.finished_ms = context.clock.epoch_ms();
  record.transcript = transcript_json(*task);
  task->events.append("end", task_summary(record));
  task->events.close();
  task->finished = true;
  if (context.deps.on_task_end) context.deps.on_task_end(status);
  auto saved = co_await context.deps.store->update_task(record);
  if (!saved) core::log_error("task {} not saved: {}", record.id, saved.error().describe());
}

}  // namespace harness::agent
