// An in-memory store::task_store for unit tests of its callers: every call
// completes at once (no thread), with the SQLite store's results and errors.
// fail_with makes every call fail with that error, as a broken disk would.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "harness/store/errors.hpp"
#include "harness/store/task_store.hpp"

namespace harness::agent::testing {

class fake_task_store final : public store::task_store {
 public:
  std::optional<error> fail_with;  // set: every call fails with it

  // What is stored, for the tests to look at.
  std::map<std::string, store::task_record> tasks;
  std::map<std::string, std::vector<store::event_record>> events_of;  // by task, in seq order
  std::map<std::string, store::conversation_record> conversations;
  std::map<std::string, std::pair<std::string, std::int64_t>> sessions;  // key -> (owner, lease until)
  std::int64_t usage_rows = 0;
  // Set: the store says other replicas share it, and keeps the watcher here
  // (a test calls it as the store's listener thread would).
  bool is_shared = false;
  std::function<void(const std::string&)> on_change;

  bool shared() const override { return is_shared; }
  status watch_changes(std::function<void(const std::string& task_id)> watcher) override {
    on_change = std::move(watcher);
    return {};
  }

  boost::asio::awaitable<status> create_task(store::task_record task) override {
    if (fail_with) co_return *fail_with;
    if (tasks.count(task.id))
      co_return make_error(harness::store::errc::task_exists, "a task with id '" + task.id + "' is stored already");
    auto id = task.id;
    tasks.emplace(std::move(id), std::move(task));
    co_return status{};
  }
  boost::asio::awaitable<status> create_task_limited(store::task_record task, std::size_t max_active) override {
    if (fail_with) co_return *fail_with;
    std::size_t active = 0;
    for (const auto& [id, t] : tasks) active += t.user_id == task.user_id && !store::is_terminal(t.status);
    if (active >= max_active) {
      co_return make_error(
          harness::store::errc::user_limit,
          "user '" + task.user_id + "' has " + std::to_string(max_active) + " unfinished task(s) already");
    }
    for (const auto& [id, t] : tasks) {
      if (t.conversation_id == task.conversation_id && !store::is_terminal(t.status)) {
        co_return make_error(harness::store::errc::conversation_running, "conversation has an unfinished task");
      }
    }
    co_return co_await create_task(std::move(task));
  }
  boost::asio::awaitable<status> update_task(store::task_record task) override {
    if (fail_with) co_return *fail_with;
    auto it = tasks.find(task.id);
    if (it == tasks.end())
      co_return make_error(harness::store::errc::task_not_found, "no task with id '" + task.id + "'");
    if (it->second.status == store::task_status::interrupted && task.status != store::task_status::interrupted) {
      co_return make_error(harness::store::errc::task_interrupted, "task '" + task.id + "' was marked interrupted");
    }
    task.lease_until_ms = std::max(task.lease_until_ms, it->second.lease_until_ms);  // as the real stores
    it->second = std::move(task);
    co_return status{};
  }
  boost::asio::awaitable<result<std::optional<store::task_record>>> get_task(std::string id) override {
    if (fail_with) co_return *fail_with;
    auto it = tasks.find(id);
    if (it == tasks.end()) co_return std::optional<store::task_record>();
    co_return std::optional<store::task_record>(it->second);
  }
  boost::asio::awaitable<result<std::vector<store::task_record>>> list_tasks(store::task_query q) override {
    if (fail_with) co_return *fail_with;
    std::vector<store::task_record> out;
    for (const auto& [id, t] : tasks) {
      if (!q.user_id.empty() && t.user_id != q.user_id) continue;
      if (q.status && t.status != *q.status) continue;
      if (q.before_ms != 0 && !(t.created_ms < q.before_ms || (t.created_ms == q.before_ms && t.id < q.before_id)))
        continue;
      out.push_back(t);
      out.back().transcript = nlohmann::json::array();
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return std::tie(a.created_ms, a.id) > std::tie(b.created_ms, b.id); });
    out.resize(std::min(out.size(), std::min(q.limit, store::max_list_limit)));
    co_return out;
  }
  boost::asio::awaitable<status> append_event(store::event_record e) override {
    if (fail_with) co_return *fail_with;
    if (!tasks.count(e.task_id))
      co_return make_error(harness::store::errc::task_not_found, "no task with id '" + e.task_id + "'");
    auto& list = events_of[e.task_id];
    for (const auto& seen : list) {
      if (seen.seq == e.seq) co_return make_error(harness::store::errc::event_exists, "the event is stored already");
    }
    list.push_back(std::move(e));
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.seq < b.seq; });
    co_return status{};
  }
  boost::asio::awaitable<result<std::vector<store::event_record>>> events(std::string task_id, std::int64_t after_seq,
                                                                          std::size_t limit) override {
    if (fail_with) co_return *fail_with;
    std::vector<store::event_record> out;
    for (const auto& e : events_of[task_id]) {
      if (e.seq > after_seq && out.size() < limit) out.push_back(e);
    }
    co_return out;
  }
  boost::asio::awaitable<result<std::optional<store::conversation_record>>> get_conversation(std::string id) override {
    if (fail_with) co_return *fail_with;
    auto it = conversations.find(id);
    if (it == conversations.end()) co_return std::optional<store::conversation_record>();
    co_return std::optional<store::conversation_record>(it->second);
  }
  boost::asio::awaitable<status> save_conversation(store::conversation_record c) override {
    if (fail_with) co_return *fail_with;
    auto it = conversations.find(c.id);
    if (it == conversations.end()) {
      auto id = c.id;
      conversations.emplace(std::move(id), std::move(c));
      co_return status{};
    }
    if (it->second.user_id != c.user_id) {
      co_return make_error(harness::store::errc::conversation_user_mismatch,
                           "conversation '" + c.id + "' belongs to another user");
    }
    c.created_ms = it->second.created_ms;
    it->second = std::move(c);
    co_return status{};
  }
  boost::asio::awaitable<status> record_usage(std::string, std::string, std::int64_t, std::int64_t,
                                              std::int64_t) override {
    if (fail_with) co_return *fail_with;
    ++usage_rows;
    co_return status{};
  }
  boost::asio::awaitable<result<store::usage_totals>> usage(std::string, std::int64_t) override {
    if (fail_with) co_return *fail_with;
    co_return store::usage_totals{};
  }
  boost::asio::awaitable<result<std::vector<std::string>>> mark_interrupted(std::int64_t now_ms,
                                                                            std::string owner) override {
    if (fail_with) co_return *fail_with;
    std::vector<std::string> ids;  // the map keeps them sorted
    for (auto& [id, t] : tasks) {
      if (store::is_terminal(t.status)) continue;
      if (!(t.lease_until_ms < now_ms || (!owner.empty() && t.owner == owner))) continue;
      t.status = store::task_status::interrupted;
      t.error = {{"code", "interrupted"}, {"message", "the server stopped before the task finished; send it again"}};
      t.finished_ms = now_ms;
      ids.push_back(id);
    }
    co_return ids;
  }
  boost::asio::awaitable<result<std::size_t>> renew_leases(std::string owner, std::int64_t until_ms) override {
    if (fail_with) co_return *fail_with;
    std::size_t n = 0;
    for (auto& [id, t] : tasks) {
      if (t.owner == owner && !store::is_terminal(t.status)) t.lease_until_ms = until_ms, ++n;
    }
    co_return n;
  }
  // The session directory (no test of the agent uses it; kept honest anyway).
  boost::asio::awaitable<result<std::string>> hold_session(std::string key, std::string owner, std::int64_t now_ms,
                                                           std::int64_t until_ms) override {
    if (fail_with) co_return *fail_with;
    auto& held = sessions[key];
    if (held.first.empty() || held.first == owner || held.second < now_ms) held = {owner, until_ms};
    co_return held.first;
  }
  boost::asio::awaitable<status> release_session(std::string key, std::string owner) override {
    if (auto it = sessions.find(key); it != sessions.end() && it->second.first == owner) sessions.erase(it);
    co_return status{};
  }
  boost::asio::awaitable<result<std::string>> session_holder(std::string key, std::int64_t now_ms) override {
    auto it = sessions.find(key);
    co_return it != sessions.end() && it->second.second >= now_ms ? it->second.first : std::string();
  }
  boost::asio::awaitable<result<std::size_t>> forget_vaults_before(std::int64_t cutoff_ms,
                                                                   nlohmann::json empty) override {
    std::size_t n = 0;
    for (auto& [id, c] : conversations) {
      if (c.updated_ms < cutoff_ms && c.vault != empty) c.vault = empty, ++n;
    }
    co_return n;
  }
  boost::asio::awaitable<result<std::size_t>> delete_finished_before(std::int64_t cutoff_ms) override {
    if (fail_with) co_return *fail_with;
    std::size_t n = std::erase_if(tasks, [&](const auto& entry) {
      const auto& t = entry.second;
      return t.finished_ms > 0 && t.finished_ms < cutoff_ms && store::is_terminal(t.status);
    });
    co_return n;
  }
  // Credentials by (user, kind, name).
  boost::asio::awaitable<status> put_credential(store::credential_record c) override {
    if (fail_with) co_return *fail_with;
    credentials[{c.user_id, c.kind, c.name}] = c;
    co_return status{};
  }
  boost::asio::awaitable<result<std::optional<store::credential_record>>> get_credential(std::string user_id,
                                                                                         std::string kind,
                                                                                         std::string name) override {
    if (fail_with) co_return *fail_with;
    auto it = credentials.find({user_id, kind, name});
    co_return it == credentials.end() ? std::optional<store::credential_record>() : it->second;
  }
  boost::asio::awaitable<result<std::vector<store::credential_record>>> list_credentials(std::string user_id,
                                                                                         std::string kind) override {
    if (fail_with) co_return *fail_with;
    std::vector<store::credential_record> out;
    for (const auto& [key, c] : credentials) {
      if (c.user_id == user_id && c.kind == kind) out.push_back(c);
    }
    co_return out;
  }
  boost::asio::awaitable<result<bool>> delete_credential(std::string user_id, std::string kind,
                                                         std::string name) override {
    if (fail_with) co_return *fail_with;
    co_return credentials.erase({user_id, kind, name}) > 0;
  }
  std::map<std::tuple<std::string, std::string, std::string>, store::credential_record> credentials;
  int schema_version() const override { return store::latest_schema_version(); }
};

}  // namespace harness::agent::testing
