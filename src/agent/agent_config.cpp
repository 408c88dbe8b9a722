#include "harness/agent/agent_config.hpp"

namespace harness::agent {

std::vector<core::setting_spec> agent_setting_specs() {
  return {
      {"AGENT_MAX_TURNS", "20", "LLM calls one task may make before it ends with status max_turns"},
      {"AGENT_LANGUAGE", "javascript",
       "the language a task's code is written in when POST /task names none: javascript or python"},
      {"AGENT_TOKEN_BUDGET", "200000", "input + output tokens one task may use before it ends with budget_exceeded"},
      {"AGENT_TASK_TIMEOUT_MS", "600000", "wall-clock limit of one task (status timed_out)"},
      {"AGENT_MAX_CONCURRENT", "4", "tasks running at once; later ones wait in the queue"},
      {"AGENT_QUEUE_SIZE", "16", "tasks waiting for a slot; past it POST /task answers 429"},
      {"AGENT_MAX_TASKS_PER_USER", "2", "running + queued tasks of one user; past it POST /task answers 429"},
      {"AGENT_OBSERVATION_MAX_CHARS", "8000",
       "longest observation sent to the LLM; the full text of a longer one goes to /workspace"},
      {"STORE_RESULTS", "restored",
       "restored (a task's answer is stored with its PII values) or tokenized (stored with the tokens; the live "
       "response still has the values)"},
      {"TASK_LEASE_MS", "30000",
       "a running task's lease: its replica renews it every third of this; when it lapses (the replica died), any "
       "replica sharing the store marks the task interrupted"},
  };
}

result<agent_config> load_agent_config(const core::settings& s, std::chrono::milliseconds exec_timeout,
                                       bridge::session_limits limits) {
  agent_config out;
  auto turns = s.get_int("AGENT_MAX_TURNS", 1, 1000);
  if (!turns) return turns.error();
  auto budget = s.get_int("AGENT_TOKEN_BUDGET", 1000, std::int64_t{1} << 40);
  if (!budget) return budget.error();
  auto timeout = s.get_ms("AGENT_TASK_TIMEOUT_MS", 1000, 86400000);
  if (!timeout) return timeout.error();
  auto concurrent = s.get_int("AGENT_MAX_CONCURRENT", 1, 1000);
  if (!concurrent) return concurrent.error();
  auto queue = s.get_int("AGENT_QUEUE_SIZE", 0, 100000);
  if (!queue) return queue.error();
  auto per_user = s.get_int("AGENT_MAX_TASKS_PER_USER", 1, 100000);
  if (!per_user) return per_user.error();
  auto observation = s.get_int("AGENT_OBSERVATION_MAX_CHARS", 500, 1 << 24);
  if (!observation) return observation.error();
  auto lease = s.get_ms("TASK_LEASE_MS", 1000, 3600000);
  if (!lease) return lease.error();
  auto language = s.get_choice("AGENT_LANGUAGE", {"javascript", "python"});
  if (!language) return language.error();
  out.language = *sandbox::parse_language(*language);
  auto results = s.get_choice("STORE_RESULTS", {"restored", "tokenized"});
  if (!results) return results.error();
  out.store_tokenized_results = *results == "tokenized";
  out.max_turns = static_cast<int>(*turns);
  out.token_budget = *budget;
  out.task_timeout = *timeout;
  out.exec_timeout = exec_timeout;
  out.limits = limits;
  out.max_concurrent = static_cast<std::size_t>(*concurrent);
  out.queue_size = static_cast<std::size_t>(*queue);
  out.max_per_user = static_cast<std::size_t>(*per_user);
  out.observation_max_chars = static_cast<std::size_t>(*observation);
  out.lease = *lease;
  return out;
}

}  // namespace harness::agent
