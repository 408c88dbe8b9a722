// A stub agent_manager for route tests: one finished task of alice's,
// "task_1"; every other id is unknown. Records what the routes asked of it.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "harness/agent/agent_manager.hpp"
#include "harness/agent/errors.hpp"
#include "harness/store/errors.hpp"

namespace harness::http::testing {

class stub_agent final : public agent::agent_manager {
 public:
  std::vector<agent::task_request> submitted;
  std::vector<std::string> cancelled;
  std::vector<std::pair<std::string, agent::approval_decision>> decided;  // approval id, decision
  store::task_query last_query;
  std::size_t listed = 1;  // how many tasks list() has

  static agent::task_view alices_task() {
    agent::task_view v;
    v.task_id = "task_1";
    v.user_id = "alice";
    v.conversation_id = "conv_1";
    v.task = "add 2 and 3";
    v.language = "python";
    v.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    v.mode = "async";
    v.status = agent::task_status::succeeded;
    v.result = "5";
    v.turns = 2;
    v.input_tokens = 30;
    v.output_tokens = 7;
    v.created_ms = 1764547200000;  // 2025-12-01T00:00:00.000Z
    v.started_ms = 1764547200010;
    v.finished_ms = 1764547201234;
    return v;
  }

  boost::asio::awaitable<result<agent::task_ticket>> submit(agent::task_request request) override {
    submitted.push_back(std::move(request));
    co_return agent::task_ticket{"task_2", "conv_2", agent::task_status::queued};
  }
  boost::asio::awaitable<result<agent::task_view>> wait(std::string id) override { co_return find(id, false); }
  boost::asio::awaitable<result<agent::task_view>> view(std::string id, bool with_transcript) override {
    co_return find(id, with_transcript);
  }
  boost::asio::awaitable<result<std::vector<agent::task_view>>> list(store::task_query q) override {
    last_query = q;
    // `listed` copies of alice's task, at most q.limit, as a store would.
    std::vector<agent::task_view> out(std::min<std::size_t>(listed, q.limit), alices_task());
    co_return out;
  }
  boost::asio::awaitable<result<agent::cancel_outcome>> cancel(std::string id) override {
    cancelled.push_back(id);
    co_return agent::cancel_outcome{id, agent::cancel_state::cancelling};
  }
  // "appr_1" of task_1 is pending; any other approval id is unknown.
  boost::asio::awaitable<result<agent::approval_view>> decide(std::string id, std::string approval_id,
                                                              agent::approval_decision decision) override {
    if (id != "task_1") co_return make_error(harness::store::errc::task_not_found, "there is no task '" + id + "'");
    if (approval_id != "appr_1") co_return make_error(agent::errc::approval_not_found, "no approval " + approval_id);
    decided.emplace_back(approval_id, std::move(decision));
    co_return agent::approval_view{
        "appr_1",     "mem__create_entities",          {{"entities", nlohmann::json::array()}},
        "code",       "rule 1 (mem__create_entities)", 1764547200100,
        1764547500100};
  }
  boost::asio::awaitable<result<std::shared_ptr<agent::task_event_stream>>> events(std::string, std::int64_t) override {
    co_return make_error(harness::store::errc::task_not_found, "no events here");
  }
  boost::asio::awaitable<void> shutdown(std::chrono::milliseconds) override { co_return; }
  agent::agent_stats stats() const override { return {}; }

 private:
  static result<agent::task_view> find(const std::string& id, bool with_transcript) {
    if (id != "task_1") return make_error(harness::store::errc::task_not_found, "there is no task '" + id + "'");
    auto v = alices_task();
    if (with_transcript) v.transcript = nlohmann::json::array({{{"role", "user"}, {"content", "add 2 and 3"}}});
    return v;
  }
};

}  // namespace harness::http::testing
