// run_on_store_thread: the awaitable store over a real in-memory SQLite
// backend. The calls run on the store's own thread, never the caller's, and
// come back in the order they were made with the backend's results.
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "store_test_support.hpp"
#include "support/run_sync.hpp"

#include "harness/store/errors.hpp"

namespace harness::store {
namespace {

namespace asio = boost::asio;
using harness::testing::run_sync;
using testing::sample_task;

// Forwards to a real backend and notes the threads the calls ran on.
class thread_recording_backend final : public blocking_task_store {
 public:
  explicit thread_recording_backend(std::shared_ptr<blocking_task_store> real) : real_(std::move(real)) {}

  std::set<std::thread::id> threads() const {
    std::lock_guard lock(mutex_);
    return threads_;
  }

  status create_task(const task_record& t) override { return note(), real_->create_task(t); }
  status update_task(const task_record& t) override { return note(), real_->update_task(t); }
  result<std::optional<task_record>> get_task(const std::string& id) override { return note(), real_->get_task(id); }
  result<std::vector<task_record>> list_tasks(const task_query& q) override { return note(), real_->list_tasks(q); }
  status append_event(const event_record& e) override { return note(), real_->append_event(e); }
  result<std::vector<event_record>> events(const std::string& id, std::int64_t after, std::size_t limit) override {
    return note(), real_->events(id, after, limit);
  }
  result<std::optional<conversation_record>> get_conversation(const std::string& id) override {
    return note(), real_->get_conversation(id);
  }
  status save_conversation(const conversation_record& c) override { return note(), real_->save_conversation(c); }
  status record_usage(const std::string& user, const std::string& task, std::int64_t in, std::int64_t out,
                      std::int64_t at) override {
    return note(), real_->record_usage(user, task, in, out, at);
  }
  result<usage_totals> usage(const std::string& user, std::int64_t since) override {
    return note(), real_->usage(user, since);
  }
  status create_task_limited(const task_record& t, std::size_t max_active) override {
    return note(), real_->create_task_limited(t, max_active);
  }
  result<std::vector<std::string>> mark_interrupted(std::int64_t now, const std::string& owner) override {
    return note(), real_->mark_interrupted(now, owner);
  }
  result<std::string> hold_session(const std::string& key, const std::string& owner, std::int64_t now,
                                   std::int64_t until) override {
    return note(), real_->hold_session(key, owner, now, until);
  }
  status release_session(const std::string& key, const std::string& owner) override {
    return note(), real_->release_session(key, owner);
  }
  result<std::string> session_holder(const std::string& key, std::int64_t now) override {
    return note(), real_->session_holder(key, now);
  }
  result<std::size_t> renew_leases(const std::string& owner, std::int64_t until) override {
    return note(), real_->renew_leases(owner, until);
  }
  bool shared() const override { return real_->shared(); }
  status watch_changes(std::function<void(const std::string&)> on_change) override {
    return real_->watch_changes(std::move(on_change));
  }
  result<std::size_t> forget_vaults_before(std::int64_t cutoff, const nlohmann::json& empty) override {
    return note(), real_->forget_vaults_before(cutoff, empty);
  }
  result<std::size_t> delete_finished_before(std::int64_t cutoff) override {
    return note(), real_->delete_finished_before(cutoff);
  }
  status put_credential(const store::credential_record& c) override { return note(), real_->put_credential(c); }
  result<std::optional<store::credential_record>> get_credential(const std::string& user, const std::string& kind,
                                                                 const std::string& name) override {
    return note(), real_->get_credential(user, kind, name);
  }
  result<std::vector<store::credential_record>> list_credentials(const std::string& user,
                                                                 const std::string& kind) override {
    return note(), real_->list_credentials(user, kind);
  }
  result<bool> delete_credential(const std::string& user, const std::string& kind, const std::string& name) override {
    return note(), real_->delete_credential(user, kind, name);
  }
  int schema_version() const override { return real_->schema_version(); }
  core::component_health health() const override { return real_->health(); }

 private:
  void note() {
    std::lock_guard lock(mutex_);
    threads_.insert(std::this_thread::get_id());
  }

  std::shared_ptr<blocking_task_store> real_;
  mutable std::mutex mutex_;
  std::set<std::thread::id> threads_;
};

TEST(StoreThread, CallsRunOnTheStoreThreadAndReturnTheBackendsResults) {
  auto backend = std::make_shared<thread_recording_backend>(testing::open_in_memory());
  auto store = run_on_store_thread(backend);
  asio::io_context io;
  auto scenario = [store]() -> asio::awaitable<std::string> {
    auto task = sample_task("task_1");
    auto created = co_await store->create_task(task);
    if (!created) co_return "create: " + std::string(created.error().code.wire_name());
    auto again = co_await store->create_task(task);
    if (again || again.error().code != harness::store::errc::task_exists) co_return "a second create was not refused";
    task.status = task_status::succeeded;
    task.result = "42";
    auto updated = co_await store->update_task(task);
    if (!updated) co_return "update: " + std::string(updated.error().code.wire_name());
    event_record e{"task_1", 1, "final", {{"result", "42"}}, 5};
    auto appended = co_await store->append_event(e);
    if (!appended) co_return "append: " + std::string(appended.error().code.wire_name());
    std::string id = "task_1", other = "task_2";  // named: no temporaries inside co_await (GCC 12)
    auto read = co_await store->get_task(id);
    if (!read || !*read) co_return "get failed";
    if ((*read)->status != task_status::succeeded || (*read)->result != "42") co_return "get: wrong record";
    task_query q;
    q.user_id = "alice";
    q.status = task_status::succeeded;
    auto listed = co_await store->list_tasks(q);
    if (!listed || listed->size() != 1) co_return "list: wrong count";
    auto events = co_await store->events(id, 0, 10);
    if (!events || events->size() != 1 || (*events)[0].type != "final") co_return "events: wrong";
    auto missing = co_await store->get_task(other);
    if (!missing || *missing) co_return "get of a missing task";
    co_return "ok";
  };
  EXPECT_EQ(run_sync(io, scenario()), "ok");
  auto threads = backend->threads();
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_NE(*threads.begin(), std::this_thread::get_id());
  EXPECT_EQ(store->schema_version(), latest_schema_version());
  EXPECT_TRUE(store->health().up);
}

TEST(StoreThread, CallsStartedTogetherCompleteInTheOrderTheyWereMade) {
  auto store = run_on_store_thread(testing::open_in_memory());
  asio::io_context io;
  std::vector<std::string> order;
  // Started together without waiting in between: the events need the task
  // stored first, and the completions must come back in the order of the calls.
  auto create = [&]() -> asio::awaitable<void> {
    auto task = sample_task("task_1");
    auto c = co_await store->create_task(task);
    order.push_back(c ? "create" : "create failed");
  };
  auto append = [&](std::int64_t seq) -> asio::awaitable<void> {
    event_record e{"task_1", seq, "log", nullptr, seq};
    auto a = co_await store->append_event(e);
    order.push_back(a ? "event " + std::to_string(seq) : "event failed: " + std::string(a.error().code.wire_name()));
  };
  asio::co_spawn(io, create(), asio::detached);
  for (std::int64_t seq = 1; seq <= 3; ++seq) asio::co_spawn(io, append(seq), asio::detached);
  io.run();
  EXPECT_EQ(order, (std::vector<std::string>{"create", "event 1", "event 2", "event 3"}));
}

TEST(TaskStatus, EveryStatusRoundTripsThroughItsString) {
  for (auto s : all_task_statuses) EXPECT_EQ(task_status_from_string(to_string(s)), s);
  EXPECT_FALSE(task_status_from_string("done"));
  EXPECT_FALSE(task_status_from_string(""));
  EXPECT_FALSE(is_terminal(task_status::queued));
  EXPECT_FALSE(is_terminal(task_status::running));
  EXPECT_FALSE(is_terminal(task_status::awaiting_approval));
  EXPECT_TRUE(is_terminal(task_status::budget_exceeded));
}

}  // namespace
}  // namespace harness::store
