// Persistence of agent tasks, their event streams, conversations and the
// token-usage ledger, in two layers:
//  - task_store: what the server uses. Every call is an awaitable; the real
//    one (open_sqlite_store) runs the calls on a thread of its own, so the
//    I/O thread never waits on the disk. The agent's tests use an in-memory fake.
//  - blocking_task_store: a backend whose calls block on disk I/O (SQLite).
//    Call it directly only where blocking is fine: its own contract tests,
//    benchmarks, and start-up before the server accepts requests.
//
// Contract common to every member of both: thread-safe, errors are values (no
// exception escapes), and a storage failure comes back as a harness::error
// whose code starts with "store_" and whose message carries the backend's own
// message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/core/health.hpp"
#include "harness/store/task_status.hpp"

namespace harness::store {

// One agent task. JSON members are stored as text: a string holding invalid
// UTF-8 is stored with U+FFFD in place of the bad bytes (never an error);
// plain string members are stored byte for byte.
struct task_record {
  std::string id;  // "task_..."
  std::string user_id;
  std::string conversation_id;  // "conv_..."
  std::string task;             // the caller's task text as sent
  std::string mode;             // "sync" | "async" | "stream"
  // Stored as its string (to_string); a stored string that names no status
  // reads back as a "store_corrupt" error.
  task_status status = task_status::queued;
  nlohmann::json result;  // final answer (string) or null
  nlohmann::json error;   // {"code","message"} or null
  int turns = 0;
  std::int64_t input_tokens = 0, output_tokens = 0;
  std::int64_t created_ms = 0, started_ms = 0, finished_ms = 0;  // unix epoch ms; 0 = not yet
  std::string key_id;  // the id of the API key that submitted it ("key_..."); empty without one
  nlohmann::json transcript = nlohmann::json::array();  // messages as the LLM saw them (opaque)
  // The replica that runs the task (its SANDBOX_OWNER) and when its lease ends
  // (unix epoch ms). The owner renews the lease while the task is unfinished
  // (renew_leases); once it has passed, any replica may mark the task
  // interrupted (mark_interrupted). 0 = no lease: treated as expired.
  std::string owner{};
  std::int64_t lease_until_ms = 0;
  std::string language = "javascript";  // of the task's code: "javascript" | "python"
  std::string trace_id;                 // the OpenTelemetry trace it ran in (32 hex digits); empty when none
};

// One step of a task as shown to a streaming or polling client.
struct event_record {
  std::string task_id;
  std::int64_t seq = 0;  // 1,2,3... per task, assigned by the caller
  std::string type;      // "llm_start", "code", "log", "observation", "final", "error", ...
  nlohmann::json data;
  std::int64_t at_ms = 0;
};

struct conversation_record {
  std::string id, user_id;
  nlohmann::json messages = nlohmann::json::array();  // opaque
  nlohmann::json vault = nlohmann::json::object();    // the PII vault's JSON, opaque
  std::int64_t created_ms = 0, updated_ms = 0;
};

// One credential of a user: a secret set with `secrets set`, or the OAuth
// tokens of a user-scoped remote server. `sealed` is what the caller sealed
// with the vault key (secrets/): the store keeps it as given, never reads it.
struct credential_record {
  std::string user_id;
  std::string kind;    // "secret" or "oauth"
  std::string name;    // the secret's name, or the server's
  std::string sealed;  // JSON text
  std::int64_t updated_ms = 0;
};

struct usage_totals {
  std::int64_t tasks = 0, input_tokens = 0, output_tokens = 0;
};

// The most tasks one list_tasks call returns; a larger limit is lowered to it.
inline constexpr std::size_t max_list_limit = 1000;

struct task_query {
  // Strings have initializers so designated initializers may leave them out
  // without -Wmissing-field-initializers.
  std::string user_id{};                // empty = every user
  std::optional<task_status> status{};  // empty = any
  std::size_t limit = 50;               // 0 returns nothing; above max_list_limit: max_list_limit
  // Pagination: only tasks created before this (0 = from the newest). With
  // before_id set too, a task created at exactly before_ms is listed when its id
  // sorts below before_id, so paging by (created_ms, id) of the last row seen
  // neither skips nor repeats tasks created in the same millisecond.
  std::int64_t before_ms = 0;
  std::string before_id{};
};

// The backend: every call blocks the calling thread until the disk is done.
class blocking_task_store {
 public:
  virtual ~blocking_task_store() = default;

  // Error "task_exists" when a task with this id is stored already.
  virtual status create_task(const task_record& task) = 0;
  // create_task, but only while the task's user has fewer than max_active
  // unfinished tasks (queued, running, awaiting approval), counted over every
  // process sharing the store; error "user_limit" otherwise, and
  // "conversation_running" while the task's conversation has an unfinished
  // task. The checks and the insert are one atomic step, so two replicas
  // cannot both take the last slot or both continue one conversation.
  virtual status create_task_limited(const task_record& task, std::size_t max_active) = 0;
  // Replaces every field of the task with this id; "task_not_found" if none.
  // The lease only moves forward: the caller's copy of it may be older than
  // what renew_leases stored since. A task marked interrupted stays so: an
  // update to another status fails with "task_interrupted" (its owner was
  // taken for dead; what it writes afterwards comes too late).
  virtual status update_task(const task_record& task) = 0;
  // Empty optional when no such task.
  virtual result<std::optional<task_record>> get_task(const std::string& id) = 0;
  // Newest first (created_ms, then id, descending). The transcript of each
  // listed task is left as an empty array to keep listings light.
  virtual result<std::vector<task_record>> list_tasks(const task_query& q) = 0;

  // "event_exists" when (task_id, seq) is stored already; "task_not_found"
  // when the task does not exist (events belong to a stored task).
  virtual status append_event(const event_record& event) = 0;
  // Events of the task with seq > after_seq, ascending, at most `limit`.
  virtual result<std::vector<event_record>> events(const std::string& task_id, std::int64_t after_seq,
                                                   std::size_t limit = 10000) = 0;

  virtual result<std::optional<conversation_record>> get_conversation(const std::string& id) = 0;
  // Insert or update by id. An update keeps the created_ms of the first save
  // and fails with "conversation_user_mismatch" when the stored conversation
  // belongs to another user (a conversation never changes hands).
  virtual status save_conversation(const conversation_record& c) = 0;

  // The usage ledger: one row per LLM call. Rows are kept when retention
  // deletes the task, so totals stay right.
  virtual status record_usage(const std::string& user_id, const std::string& task_id, std::int64_t input_tokens,
                              std::int64_t output_tokens, std::int64_t at_ms) = 0;
  // Sums of the ledger rows at or after since_ms; tasks = distinct task ids.
  // An empty user_id sums every user.
  virtual result<usage_totals> usage(const std::string& user_id, std::int64_t since_ms = 0) = 0;

  // Recovery: every unfinished task (queued, running, awaiting approval) whose
  // lease ended before now_ms (lease_until_ms < now_ms, so also a task without
  // a lease), or whose owner is `owner` when `owner` is not empty, becomes
  // interrupted with error {"code":"interrupted","message":...} and
  // finished_ms = now_ms. Returns their ids. At start-up a replica passes its
  // own name (its tasks of an earlier run died with it); a periodic sweep
  // passes none and so only takes tasks whose owner stopped renewing.
  virtual result<std::vector<std::string>> mark_interrupted(std::int64_t now_ms, const std::string& owner = {}) = 0;
  // Sets lease_until_ms of every unfinished task of `owner`, and of every
  // session it holds, to until_ms. Returns how many tasks it renewed.
  virtual result<std::size_t> renew_leases(const std::string& owner, std::int64_t until_ms) = 0;

  // The session directory of replicas (execution::session_directory): a
  // session lives on the replica whose sandbox holds it. hold_session makes
  // `owner` the holder of `key` with a lease until until_ms, unless another
  // owner holds it with a lease that has not passed at now_ms; returns the
  // holder after the call (owner when it got or kept it).
  virtual result<std::string> hold_session(const std::string& key, const std::string& owner, std::int64_t now_ms,
                                           std::int64_t until_ms) = 0;
  // Forgets `key` when `owner` holds it (another holder's entry stays).
  virtual status release_session(const std::string& key, const std::string& owner) = 0;
  // The holder of `key` whose lease has not passed at now_ms; empty when none.
  virtual result<std::string> session_holder(const std::string& key, std::int64_t now_ms) = 0;
  // Retention: deletes tasks that finished (finished_ms != 0, status neither
  // queued nor running) before cutoff_ms, with their events. Returns how
  // many tasks. Conversations and the usage ledger are kept.
  virtual result<std::size_t> delete_finished_before(std::int64_t cutoff_ms) = 0;
  // Vault retention: sets the PII vault of every conversation not updated
  // since cutoff_ms to `empty` (an empty vault's JSON, pii_vault().to_json():
  // the store does not read vaults); its messages stay, their tokens then
  // stand for nothing. Returns how many vaults changed.
  virtual result<std::size_t> forget_vaults_before(std::int64_t cutoff_ms, const nlohmann::json& empty) = 0;

  // Users' credentials (schema version 8), by (user_id, kind, name):
  // put_credential adds or replaces one; get_credential reads one (nullopt
  // when there is none); list_credentials lists a user's of one kind by
  // name; delete_credential returns whether there was one.
  virtual status put_credential(const credential_record& credential) = 0;
  virtual result<std::optional<credential_record>> get_credential(const std::string& user_id, const std::string& kind,
                                                                  const std::string& name) = 0;
  virtual result<std::vector<credential_record>> list_credentials(const std::string& user_id,
                                                                  const std::string& kind) = 0;
  virtual result<bool> delete_credential(const std::string& user_id, const std::string& kind,
                                         const std::string& name) = 0;

  // The schema version this store runs at (after migrations).
  virtual int schema_version() const = 0;

  // Cached state for GET /health: never blocks, never touches the disk. The
  // default (for fakes) reports up with no detail.
  virtual core::component_health health() const { return {}; }

  // True when other processes may write to the same store (PostgreSQL): a
  // replica then follows tasks that run elsewhere through watch_changes.
  virtual bool shared() const { return false; }
  // From now on calls on_change(task_id), on a thread of the store's own,
  // whenever any process sharing the store appends an event to that task,
  // updates it, or marks it interrupted. After a lost connection is
  // re-established it calls on_change("") once: changes may have been missed,
  // re-read whatever you follow. One watcher per store; it ends when the store
  // is destroyed. A store that is not shared does nothing and returns success.
  virtual status watch_changes(std::function<void(const std::string& task_id)> on_change) {
    (void)on_change;
    return {};
  }
};

// What the server uses: the calls of blocking_task_store (same arguments,
// results and errors) as awaitables that never block the caller's thread.
// The coroutine resumes on its own executor. Calls complete in the order they
// were made. Arguments are taken by value: the call owns its copy while it runs
// elsewhere.
class task_store {
 public:
  virtual ~task_store() = default;

  virtual boost::asio::awaitable<status> create_task(task_record task) = 0;
  virtual boost::asio::awaitable<status> create_task_limited(task_record task, std::size_t max_active) = 0;
  virtual boost::asio::awaitable<status> update_task(task_record task) = 0;
  virtual boost::asio::awaitable<result<std::optional<task_record>>> get_task(std::string id) = 0;
  virtual boost::asio::awaitable<result<std::vector<task_record>>> list_tasks(task_query q) = 0;
  virtual boost::asio::awaitable<status> append_event(event_record event) = 0;
  virtual boost::asio::awaitable<result<std::vector<event_record>>> events(std::string task_id, std::int64_t after_seq,
                                                                           std::size_t limit) = 0;
  virtual boost::asio::awaitable<result<std::optional<conversation_record>>> get_conversation(std::string id) = 0;
  virtual boost::asio::awaitable<status> save_conversation(conversation_record c) = 0;
  virtual boost::asio::awaitable<status> record_usage(std::string user_id, std::string task_id,
                                                      std::int64_t input_tokens, std::int64_t output_tokens,
                                                      std::int64_t at_ms) = 0;
  virtual boost::asio::awaitable<result<usage_totals>> usage(std::string user_id, std::int64_t since_ms) = 0;
  virtual boost::asio::awaitable<result<std::vector<std::string>>> mark_interrupted(std::int64_t now_ms,
                                                                                    std::string owner) = 0;
  virtual boost::asio::awaitable<result<std::size_t>> renew_leases(std::string owner, std::int64_t until_ms) = 0;
  virtual boost::asio::awaitable<result<std::string>> hold_session(std::string key, std::string owner,
                                                                   std::int64_t now_ms, std::int64_t until_ms) = 0;
  virtual boost::asio::awaitable<status> release_session(std::string key, std::string owner) = 0;
  virtual boost::asio::awaitable<result<std::string>> session_holder(std::string key, std::int64_t now_ms) = 0;
  virtual boost::asio::awaitable<result<std::size_t>> delete_finished_before(std::int64_t cutoff_ms) = 0;
  virtual boost::asio::awaitable<result<std::size_t>> forget_vaults_before(std::int64_t cutoff_ms,
                                                                           nlohmann::json empty) = 0;
  virtual boost::asio::awaitable<status> put_credential(credential_record credential) = 0;
  virtual boost::asio::awaitable<result<std::optional<credential_record>>> get_credential(std::string user_id,
                                                                                          std::string kind,
                                                                                          std::string name) = 0;
  virtual boost::asio::awaitable<result<std::vector<credential_record>>> list_credentials(std::string user_id,
                                                                                          std::string kind) = 0;
  virtual boost::asio::awaitable<result<bool>> delete_credential(std::string user_id, std::string kind,
                                                                 std::string name) = 0;

  virtual int schema_version() const = 0;
  // Never blocks, never touches the disk (see blocking_task_store::health).
  virtual core::component_health health() const { return {}; }
  // See blocking_task_store: shared() and watch_changes() are the backend's own.
  virtual bool shared() const { return false; }
  virtual status watch_changes(std::function<void(const std::string& task_id)> on_change) {
    (void)on_change;
    return {};
  }
};

// Runs every call of `backend` on one thread of its own, in the order the
// calls were made. The thread ends (after finishing the calls already handed
// to it) when the returned store is destroyed.
std::shared_ptr<task_store> run_on_store_thread(std::shared_ptr<blocking_task_store> backend);

// Opens the SQLite database at `file`, creating its folders and the file as
// needed: WAL journal, synchronous=NORMAL, foreign keys on, a busy timeout, then
// the versioned migrations (table schema_migrations; each migration in its own
// transaction). Errors: "store_open_failed" (cannot create or open, not a
// database, corrupt, a SQLite file of another program), "store_migration_failed",
// "store_too_new" (written by a newer build: this build refuses to touch it).
// ":memory:" opens a private in-memory database (for tests of the callers).
// Blocks while it opens and migrates: call it at start-up or in tests.
result<std::shared_ptr<blocking_task_store>> open_blocking_sqlite_store(const std::filesystem::path& file);

// open_blocking_sqlite_store, then run_on_store_thread: the store the server
// uses. Opening blocks (start-up); the calls afterwards do not.
result<std::shared_ptr<task_store>> open_sqlite_store(const std::filesystem::path& file);

// Connects to the PostgreSQL database at `url` (a libpq connection URI,
// postgresql://... or postgres://...), then runs the versioned migrations
// (table schema_migrations, each in its own transaction, under an advisory lock
// so that replicas starting together migrate once). Errors as
// open_blocking_sqlite_store ("store_open_failed" names the server's own
// message, never the password). Blocks: call it at start-up or in tests.
result<std::shared_ptr<blocking_task_store>> open_blocking_postgres_store(const std::string& url);

// The newest schema version this build knows.
int latest_schema_version();

}  // namespace harness::store
