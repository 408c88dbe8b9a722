// task_store over a blocking backend: one thread of its own runs every call,
// in order; the caller's coroutine waits without blocking its thread.
#include <boost/asio/thread_pool.hpp>

#include "harness/core/run_blocking.hpp"
#include "harness/store/task_store.hpp"

namespace harness::store {
namespace {

namespace asio = boost::asio;

class threaded_task_store final : public task_store {
 public:
  explicit threaded_task_store(std::shared_ptr<blocking_task_store> backend) : backend_(std::move(backend)) {}
  // Finishes the calls already handed to the thread, then joins it.
  ~threaded_task_store() override { thread_.join(); }

  asio::awaitable<status> create_task(task_record task) override {
    return on_thread([b = backend_, task = std::move(task)] { return b->create_task(task); });
  }
  asio::awaitable<status> create_task_limited(task_record task, std::size_t max_active) override {
    return on_thread(
        [b = backend_, task = std::move(task), max_active] { return b->create_task_limited(task, max_active); });
  }
  asio::awaitable<status> update_task(task_record task) override {
    return on_thread([b = backend_, task = std::move(task)] { return b->update_task(task); });
  }
  asio::awaitable<result<std::optional<task_record>>> get_task(std::string id) override {
    return on_thread([b = backend_, id = std::move(id)] { return b->get_task(id); });
  }
  asio::awaitable<result<std::vector<task_record>>> list_tasks(task_query q) override {
    return on_thread([b = backend_, q = std::move(q)] { return b->list_tasks(q); });
  }
  asio::awaitable<status> append_event(event_record event) override {
    return on_thread([b = backend_, event = std::move(event)] { return b->append_event(event); });
  }
  asio::awaitable<result<std::vector<event_record>>> events(std::string task_id, std::int64_t after_seq,
                                                            std::size_t limit) override {
    return on_thread([b = backend_, task_id = std::move(task_id), after_seq, limit] {
      return b->events(task_id, after_seq, limit);
    });
  }
  asio::awaitable<result<std::optional<conversation_record>>> get_conversation(std::string id) override {
    return on_thread([b = backend_, id = std::move(id)] { return b->get_conversation(id); });
  }
  asio::awaitable<status> save_conversation(conversation_record c) override {
    return on_thread([b = backend_, c = std::move(c)] { return b->save_conversation(c); });
  }
  asio::awaitable<status> record_usage(std::string user_id, std::string task_id, std::int64_t input_tokens,
                                       std::int64_t output_tokens, std::int64_t at_ms) override {
    return on_thread([b = backend_, user_id = std::move(user_id), task_id = std::move(task_id), input_tokens,
                      output_tokens,
                      at_ms] { return b->record_usage(user_id, task_id, input_tokens, output_tokens, at_ms); });
  }
  asio::awaitable<result<usage_totals>> usage(std::string user_id, std::int64_t since_ms) override {
    return on_thread([b = backend_, user_id = std::move(user_id), since_ms] { return b->usage(user_id, since_ms); });
  }
  asio::awaitable<result<std::vector<std::string>>> mark_interrupted(std::int64_t now_ms, std::string owner) override {
    return on_thread([b = backend_, now_ms, owner = std::move(owner)] { return b->mark_interrupted(now_ms, owner); });
  }
  asio::awaitable<result<std::size_t>> renew_leases(std::string owner, std::int64_t until_ms) override {
    return on_thread([b = backend_, owner = std::move(owner), until_ms] { return b->renew_leases(owner, until_ms); });
  }
  asio::awaitable<result<std::string>> hold_session(std::string key, std::string owner, std::int64_t now_ms,
                                                    std::int64_t until_ms) override {
    return on_thread([b = backend_, key = std::move(key), owner = std::move(owner), now_ms, until_ms] {
      return b->hold_session(key, owner, now_ms, until_ms);
    });
  }
  asio::awaitable<status> release_session(std::string key, std::string owner) override {
    return on_thread(
        [b = backend_, key = std::move(key), owner = std::move(owner)] { return b->release_session(key, owner); });
  }
  asio::awaitable<result<std::string>> session_holder(std::string key, std::int64_t now_ms) override {
    return on_thread([b = backend_, key = std::move(key), now_ms] { return b->session_holder(key, now_ms); });
  }
  asio::awaitable<result<std::size_t>> forget_vaults_before(std::int64_t cutoff_ms, nlohmann::json empty) override {
    return on_thread(
        [b = backend_, cutoff_ms, empty = std::move(empty)] { return b->forget_vaults_before(cutoff_ms, empty); });
  }
  asio::awaitable<result<std::size_t>> delete_finished_before(std::int64_t cutoff_ms) override {
    return on_thread([b = backend_, cutoff_ms] { return b->delete_finished_before(cutoff_ms); });
  }

  asio::awaitable<status> put_credential(credential_record credential) override {
    return on_thread([b = backend_, credential = std::move(credential)] { return b->put_credential(credential); });
  }
  asio::awaitable<result<std::optional<credential_record>>> get_credential(std::string user_id, std::string kind,
                                                                           std::string name) override {
    return on_thread([b = backend_, user_id = std::move(user_id), kind = std::move(kind), name = std::move(name)] {
      return b->get_credential(user_id, kind, name);
    });
  }
  asio::awaitable<result<std::vector<credential_record>>> list_credentials(std::string user_id,
                                                                           std::string kind) override {
    return on_thread([b = backend_, user_id = std::move(user_id), kind = std::move(kind)] {
      return b->list_credentials(user_id, kind);
    });
  }
  asio::awaitable<result<bool>> delete_credential(std::string user_id, std::string kind, std::string name) override {
    return on_thread([b = backend_, user_id = std::move(user_id), kind = std::move(kind), name = std::move(name)] {
      return b->delete_credential(user_id, kind, name);
    });
  }

  int schema_version() const override { return backend_->schema_version(); }
  core::component_health health() const override { return backend_->health(); }
  // Not on the store thread: both are the backend's own, and watch_changes
  // calls on_change on a thread of the backend's.
  bool shared() const override { return backend_->shared(); }
  status watch_changes(std::function<void(const std::string& task_id)> on_change) override {
    return backend_->watch_changes(std::move(on_change));
  }

 private:
  // The calls above are not coroutines: they only build run_blocking's
  // awaitable, which owns the lambda (never a temporary inside a co_await, see run_blocking.hpp).
  template <class F>
  asio::awaitable<std::invoke_result_t<F>> on_thread(F work) {
    return core::run_blocking(thread_.get_executor(), std::move(work));
  }

  std::shared_ptr<blocking_task_store> backend_;
  asio::thread_pool thread_{1};
};

}  // namespace

std::shared_ptr<task_store> run_on_store_thread(std::shared_ptr<blocking_task_store> backend) {
  return std::make_shared<threaded_task_store>(std::move(backend));
}

}  // namespace harness::store
