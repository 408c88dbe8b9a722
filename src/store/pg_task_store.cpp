// The PostgreSQL task store: one connection serialized by a mutex, every value
// a $n parameter. Changes other replicas must see (events, task updates,
// interruptions) send pg_notify on harness_tasks in the same statement, with
// the task id in hex as payload (ids are bytes; a payload is text).
#include <algorithm>
#include <limits>
#include <mutex>

#include "harness/store/errors.hpp"
#include "harness/store/task_store.hpp"
#include "pg_connection.hpp"
#include "pg_migrations.hpp"
#include "pg_watch.hpp"
#include "store_common.hpp"
#include "task_sql.hpp"

namespace harness::store {
namespace {

using detail::pg_connection;
using detail::pg_params;
using detail::pg_rows;

#define HARNESS_PG_UNFINISHED "status IN ('queued', 'running', 'awaiting_approval')"
#define HARNESS_PG_NOTIFY(id) "pg_notify('harness_tasks', encode(" id ", 'hex'))"

pg_params task_params(const task_record& t) {
  pg_params p;
  p.bytes(t.id).bytes(t.user_id).bytes(t.conversation_id).bytes(t.task).bytes(t.mode).text(to_string(t.status));
  p.json(t.result).json(t.error).int64(t.turns).int64(t.input_tokens).int64(t.output_tokens);
  p.int64(t.created_ms).int64(t.started_ms).int64(t.finished_ms).bytes(t.key_id).bytes(t.owner);
  p.int64(t.lease_until_ms).text(t.language).text(t.trace_id).json(t.transcript);
  return p;
}

result<task_record> read_task(const pg_rows& rows, int row) {
  task_record t;
  t.id = rows.bytes(row, 0);
  t.user_id = rows.bytes(row, 1);
  t.conversation_id = rows.bytes(row, 2);
  t.task = rows.bytes(row, 3);
  t.mode = rows.bytes(row, 4);
  auto status_text = rows.text(row, 5);
  auto status = task_status_from_string(status_text);
  if (!status) return make_error(errc::corrupt, "task " + t.id + " has an unknown status '" + status_text + "'");
  t.status = *status;
  const std::string what = "cannot read task " + t.id;
  auto res = rows.json(row, 6, what);
  if (!res) return res.error();
  auto err = rows.json(row, 7, what);
  if (!err) return err.error();
  t.result = std::move(*res);
  t.error = std::move(*err);
  t.turns = static_cast<int>(rows.int64(row, 8));
  t.input_tokens = rows.int64(row, 9);
  t.output_tokens = rows.int64(row, 10);
  t.created_ms = rows.int64(row, 11);
  t.started_ms = rows.int64(row, 12);
  t.finished_ms = rows.int64(row, 13);
  t.key_id = rows.bytes(row, 14);
  t.owner = rows.bytes(row, 15);
  t.lease_until_ms = rows.int64(row, 16);
  t.language = rows.text(row, 17);
  t.trace_id = rows.text(row, 18);
  auto transcript = rows.json(row, 19, what);
  if (!transcript) return transcript.error();
  t.transcript = std::move(*transcript);
  return t;
}

result<std::vector<task_record>> read_tasks(const pg_rows& rows) {
  std::vector<task_record> out;
  out.reserve(static_cast<std::size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    auto t = read_task(rows, i);
    if (!t) return t.error();
    out.push_back(std::move(*t));
  }
  return out;
}

std::int64_t clamp_limit(std::size_t limit, std::size_t max) {
  return static_cast<std::int64_t>(std::min(limit, max));
}

constexpr const char* insert_task_sql =
    "INSERT INTO tasks (" HARNESS_TASK_COLUMNS
    ", transcript) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)";
constexpr const char* list_all_sql =
    "SELECT " HARNESS_TASK_COLUMNS
    ", '[]' FROM tasks WHERE ($1 = '' OR status = $1) AND (created_ms < $2 OR (created_ms = $2 AND id < $3)) "
    "ORDER BY created_ms DESC, id DESC LIMIT $4";
constexpr const char* list_user_sql =
    "SELECT " HARNESS_TASK_COLUMNS
    ", '[]' FROM tasks WHERE user_id = $5 AND ($1 = '' OR status = $1) "
    "AND (created_ms < $2 OR (created_ms = $2 AND id < $3)) ORDER BY created_ms DESC, id DESC LIMIT $4";
constexpr const char* usage_all_sql =
    "SELECT count(DISTINCT task_id), coalesce(sum(input_tokens), 0)::bigint, coalesce(sum(output_tokens), 0)::bigint "
    "FROM usage WHERE at_ms >= $1";
constexpr const char* usage_user_sql =
    "SELECT count(DISTINCT task_id), coalesce(sum(input_tokens), 0)::bigint, coalesce(sum(output_tokens), 0)::bigint "
    "FROM usage WHERE at_ms >= $1 AND user_id = $2";

class pg_task_store final : public blocking_task_store {
 public:
  pg_task_store(std::unique_ptr<pg_connection> db, std::string url, int version)
      : db_(std::move(db)), url_(std::move(url)), version_(version) {}

  status create_task(const task_record& task) override {
    std::lock_guard lock(mutex_);
    return track(insert_task(task));
  }

  status create_task_limited(const task_record& task, std::size_t max_active) override {
    std::lock_guard lock(mutex_);
    return track(db_->in_transaction<status>(
        [&]() -> status {
          // Keyed on the user: two replicas creating tasks for one user take
          // turns from here to the commit, so each counts the other's insert.
          auto locked = db_->exec("SELECT pg_advisory_xact_lock(1752003956, hashtext(encode($1, 'hex')))",
                                  pg_params().bytes(task.user_id), "cannot lock the tasks of " + task.user_id);
          if (!locked) return locked.error();
          auto count = db_->exec("SELECT count(*) FROM tasks WHERE user_id = $1 AND " HARNESS_PG_UNFINISHED,
                                 pg_params().bytes(task.user_id), "cannot count the tasks of " + task.user_id);
          if (!count) return count.error();
          if (static_cast<std::size_t>(count->int64(0, 0)) >= max_active) {
            return detail::user_limit_error(task.user_id, max_active);
          }
          // A conversation is one user's: the lock above covers it too.
          auto running =
              db_->exec("SELECT count(*) FROM tasks WHERE conversation_id = $1 AND " HARNESS_PG_UNFINISHED,
                        pg_params().bytes(task.conversation_id), "cannot count the tasks of " + task.conversation_id);
          if (!running) return running.error();
          if (running->int64(0, 0) > 0) return detail::conversation_running_error(task.conversation_id);
          return insert_task(task);
        },
        "cannot store task " + task.id));
  }

  status update_task(const task_record& task) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto rows = db_->exec(
          "WITH changed AS (UPDATE tasks SET user_id = $2, conversation_id = $3, task = $4, mode = $5, status = $6, "
          "result = $7, error = $8, turns = $9, input_tokens = $10, output_tokens = $11, created_ms = $12, "
          "started_ms = $13, finished_ms = $14, key_id = $15, owner = $16, lease_until_ms = greatest(lease_until_ms, "
          "$17), language = $18, trace_id = $19, transcript = $20 "
          "WHERE id = $1 AND NOT (status = 'interrupted' AND $6 <> 'interrupted') RETURNING id) "
          "SELECT " HARNESS_PG_NOTIFY("id") " FROM changed",
          task_params(task), "cannot update task " + task.id);
      if (!rows) return rows.error();
      if (rows->size() > 0) return {};
      auto exists =
          db_->exec("SELECT 1 FROM tasks WHERE id = $1", pg_params().bytes(task.id), "cannot read task " + task.id);
      if (!exists) return exists.error();
      return exists->size() > 0 ? detail::task_interrupted_error(task.id) : detail::task_not_found_error(task.id);
    }());
  }

  result<std::optional<task_record>> get_task(const std::string& id) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::optional<task_record>> {
      auto rows = db_->exec("SELECT " HARNESS_TASK_COLUMNS ", transcript FROM tasks WHERE id = $1",
                            pg_params().bytes(id), "cannot read task " + id);
      if (!rows) return rows.error();
      if (rows->size() == 0) return std::optional<task_record>();
      auto t = read_task(*rows, 0);
      if (!t) return t.error();
      return std::optional<task_record>(std::move(*t));
    }());
  }

  result<std::vector<task_record>> list_tasks(const task_query& q) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::vector<task_record>> {
      const bool paged = q.before_ms != 0;
      pg_params p;
      p.text(q.status ? to_string(*q.status) : std::string_view(""))
          .int64(paged ? q.before_ms : std::numeric_limits<std::int64_t>::max())
          .bytes(paged ? std::string_view(q.before_id) : std::string_view())
          .int64(clamp_limit(q.limit, max_list_limit));
      if (!q.user_id.empty()) p.bytes(q.user_id);
      auto rows = db_->exec(q.user_id.empty() ? list_all_sql : list_user_sql, p, "cannot list tasks");
      if (!rows) return rows.error();
      return read_tasks(*rows);
    }());
  }

  status append_event(const event_record& e) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto rows = db_->exec(
          "WITH added AS (INSERT INTO events (task_id, seq, type, data, at_ms) VALUES ($1, $2, $3, $4, $5) "
          "RETURNING task_id) SELECT " HARNESS_PG_NOTIFY("task_id") " FROM added",
          pg_params().bytes(e.task_id).int64(e.seq).bytes(e.type).json(e.data).int64(e.at_ms),
          "cannot store an event of " + e.task_id);
      if (rows) return {};
      if (db_->last_sqlstate() == detail::unique_violation) return detail::event_exists_error(e.task_id, e.seq);
      if (db_->last_sqlstate() == detail::foreign_key_violation) return detail::event_without_task_error(e.task_id);
      return rows.error();
    }());
  }

  result<std::vector<event_record>> events(const std::string& task_id, std::int64_t after_seq,
                                           std::size_t limit) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::vector<event_record>> {
      auto rows = db_->exec(
          "SELECT task_id, seq, type, data, at_ms FROM events WHERE task_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
          pg_params().bytes(task_id).int64(after_seq).int64(
              clamp_limit(limit, std::numeric_limits<std::int64_t>::max())),
          "cannot read events of " + task_id);
      if (!rows) return rows.error();
      std::vector<event_record> out;
      for (int i = 0; i < rows->size(); ++i) {
        event_record e{rows->bytes(i, 0), rows->int64(i, 1), rows->bytes(i, 2), nullptr, rows->int64(i, 4)};
        auto data = rows->json(i, 3, "cannot read an event of " + task_id);
        if (!data) return data.error();
        e.data = std::move(*data);
        out.push_back(std::move(e));
      }
      return out;
    }());
  }

  result<std::optional<conversation_record>> get_conversation(const std::string& id) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::optional<conversation_record>> {
      auto rows =
          db_->exec("SELECT id, user_id, messages, vault, created_ms, updated_ms FROM conversations WHERE id = $1",
                    pg_params().bytes(id), "cannot read conversation " + id);
      if (!rows) return rows.error();
      if (rows->size() == 0) return std::optional<conversation_record>();
      conversation_record c{rows->bytes(0, 0), rows->bytes(0, 1), nullptr,
                            nullptr,           rows->int64(0, 4), rows->int64(0, 5)};
      auto messages = rows->json(0, 2, "cannot read conversation " + id);
      if (!messages) return messages.error();
      auto vault = rows->json(0, 3, "cannot read conversation " + id);
      if (!vault) return vault.error();
      c.messages = std::move(*messages);
      c.vault = std::move(*vault);
      return std::optional<conversation_record>(std::move(c));
    }());
  }

  status save_conversation(const conversation_record& c) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto rows = db_->exec(
          "INSERT INTO conversations (id, user_id, messages, vault, created_ms, updated_ms) "
          "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO UPDATE SET messages = excluded.messages, "
          "vault = excluded.vault, updated_ms = excluded.updated_ms WHERE conversations.user_id = excluded.user_id",
          pg_params()
              .bytes(c.id)
              .bytes(c.user_id)
              .json(c.messages)
              .json(c.vault)
              .int64(c.created_ms)
              .int64(c.updated_ms),
          "cannot store conversation " + c.id);
      if (!rows) return rows.error();
      if (rows->changed() == 0) return detail::conversation_user_mismatch_error(c.id);
      return {};
    }());
  }

  status record_usage(const std::string& user_id, const std::string& task_id, std::int64_t input_tokens,
                      std::int64_t output_tokens, std::int64_t at_ms) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto rows = db_->exec(
          "INSERT INTO usage (user_id, task_id, input_tokens, output_tokens, at_ms) VALUES ($1, $2, $3, $4, $5)",
          pg_params().bytes(user_id).bytes(task_id).int64(input_tokens).int64(output_tokens).int64(at_ms),
          "cannot record usage of " + task_id);
      if (!rows) return rows.error();
      return {};
    }());
  }

  result<usage_totals> usage(const std::string& user_id, std::int64_t since_ms) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<usage_totals> {
      pg_params p;
      p.int64(since_ms);
      if (!user_id.empty()) p.bytes(user_id);
      auto rows = db_->exec(user_id.empty() ? usage_all_sql : usage_user_sql, p, "cannot sum usage");
      if (!rows) return rows.error();
      return usage_totals{rows->int64(0, 0), rows->int64(0, 1), rows->int64(0, 2)};
    }());
  }

  result<std::vector<std::string>> mark_interrupted(std::int64_t now_ms, const std::string& owner) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::vector<std::string>> {
      auto rows = db_->exec(
          "WITH taken AS (UPDATE tasks SET status = 'interrupted', error = $1, finished_ms = $2 "
          "WHERE " HARNESS_PG_UNFINISHED
          " AND (lease_until_ms < $2 OR ($3 <> ''::bytea AND owner = $3)) RETURNING id) "
          "SELECT id, " HARNESS_PG_NOTIFY("id") " FROM taken ORDER BY id",
          pg_params().json(detail::interrupted_error()).int64(now_ms).bytes(owner),
          "cannot mark unfinished tasks interrupted");
      if (!rows) return rows.error();
      std::vector<std::string> ids;
      for (int i = 0; i < rows->size(); ++i) ids.push_back(rows->bytes(i, 0));
      return ids;
    }());
  }

  result<std::size_t> renew_leases(const std::string& owner, std::int64_t until_ms) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::size_t> {
      auto rows = db_->exec("UPDATE tasks SET lease_until_ms = $2 WHERE owner = $1 AND " HARNESS_PG_UNFINISHED,
                            pg_params().bytes(owner).int64(until_ms), "cannot renew the leases of " + owner);
      if (!rows) return rows.error();
      auto sessions = db_->exec("UPDATE sessions SET lease_until_ms = $2 WHERE owner = $1",
                                pg_params().text(owner).int64(until_ms), "cannot renew the sessions of " + owner);
      if (!sessions) return sessions.error();
      return static_cast<std::size_t>(rows->changed());
    }());
  }

  result<std::string> hold_session(const std::string& key, const std::string& owner, std::int64_t now_ms,
                                   std::int64_t until_ms) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::string> {
      // Taken over only from a holder whose lease has passed; the row locked by
      // the upsert makes two replicas' holds take turns.
      auto held = db_->exec(
          "INSERT INTO sessions (key, owner, lease_until_ms) VALUES ($1, $2, $4) ON CONFLICT (key) DO UPDATE SET "
          "owner = excluded.owner, lease_until_ms = excluded.lease_until_ms "
          "WHERE sessions.owner = excluded.owner OR sessions.lease_until_ms < $3 RETURNING owner",
          pg_params().text(key).text(owner).int64(now_ms).int64(until_ms), "cannot hold session " + key);
      if (!held) return held.error();
      if (held->size() > 0) return held->text(0, 0);
      return holder_of(key, std::numeric_limits<std::int64_t>::min());
    }());
  }

  status release_session(const std::string& key, const std::string& owner) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto rows = db_->exec("DELETE FROM sessions WHERE key = $1 AND owner = $2", pg_params().text(key).text(owner),
                            "cannot release session " + key);
      if (!rows) return rows.error();
      return {};
    }());
  }

  result<std::string> session_holder(const std::string& key, std::int64_t now_ms) override {
    std::lock_guard lock(mutex_);
    return track(holder_of(key, now_ms));
  }

  status put_credential(const credential_record& c) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto rows = db_->exec(
          "INSERT INTO credentials (user_id, kind, name, sealed, updated_ms) VALUES ($1, $2, $3, $4, $5) "
          "ON CONFLICT (user_id, kind, name) DO UPDATE SET sealed = excluded.sealed, updated_ms = excluded.updated_ms",
          pg_params().text(c.user_id).text(c.kind).text(c.name).text(c.sealed).int64(c.updated_ms),
          "cannot store a credential");
      if (!rows) return rows.error();
      return {};
    }());
  }

  result<std::optional<credential_record>> get_credential(const std::string& user_id, const std::string& kind,
                                                          const std::string& name) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::optional<credential_record>> {
      auto rows =
          db_->exec("SELECT name, sealed, updated_ms FROM credentials WHERE user_id = $1 AND kind = $2 AND name = $3",
                    pg_params().text(user_id).text(kind).text(name), "cannot read a credential");
      if (!rows) return rows.error();
      if (rows->size() == 0) return std::optional<credential_record>();
      return std::optional<credential_record>(
          credential_record{user_id, kind, rows->text(0, 0), rows->text(0, 1), rows->int64(0, 2)});
    }());
  }

  result<std::vector<credential_record>> list_credentials(const std::string& user_id,
                                                          const std::string& kind) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::vector<credential_record>> {
      auto rows =
          db_->exec("SELECT name, sealed, updated_ms FROM credentials WHERE user_id = $1 AND kind = $2 ORDER BY name",
                    pg_params().text(user_id).text(kind), "cannot read credentials");
      if (!rows) return rows.error();
      std::vector<credential_record> out;
      for (int row = 0; row < rows->size(); ++row) {
        out.push_back({user_id, kind, rows->text(row, 0), rows->text(row, 1), rows->int64(row, 2)});
      }
      return out;
    }());
  }

  result<bool> delete_credential(const std::string& user_id, const std::string& kind,
                                 const std::string& name) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<bool> {
      auto rows = db_->exec("DELETE FROM credentials WHERE user_id = $1 AND kind = $2 AND name = $3",
                            pg_params().text(user_id).text(kind).text(name), "cannot delete a credential");
      if (!rows) return rows.error();
      return rows->changed() > 0;
    }());
  }

  result<std::size_t> delete_finished_before(std::int64_t cutoff_ms) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::size_t> {
      // Events go with their task through ON DELETE CASCADE, in the same statement.
      auto rows = db_->exec(
          "DELETE FROM tasks WHERE finished_ms > 0 AND finished_ms < $1 AND status NOT IN ('queued', 'running', "
          "'awaiting_approval')",
          pg_params().int64(cutoff_ms), "cannot delete old tasks");
      if (!rows) return rows.error();
      return static_cast<std::size_t>(rows->changed());
    }());
  }

  result<std::size_t> forget_vaults_before(std::int64_t cutoff_ms, const nlohmann::json& empty) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::size_t> {
      auto rows = db_->exec("UPDATE conversations SET vault = $2 WHERE updated_ms < $1 AND vault <> $2",
                            pg_params().int64(cutoff_ms).json(empty), "cannot empty old vaults");
      if (!rows) return rows.error();
      return static_cast<std::size_t>(rows->changed());
    }());
  }

  int schema_version() const override { return version_; }

  core::component_health health() const override {
    return health_.report({{"backend", "postgresql"}, {"server", db_->description()}, {"schemaVersion", version_}});
  }

  bool shared() const override { return true; }

  status watch_changes(std::function<void(const std::string& task_id)> on_change) override {
    std::lock_guard lock(watch_mutex_);
    if (watch_) return make_error(errc::error, "this store has a watcher already (one per store)");
    auto watch = detail::pg_watch::start(url_, std::move(on_change));
    if (!watch) return watch.error();
    watch_ = std::move(*watch);
    return {};
  }

 private:
  // The holder of session `key` with a lease not passed at now_ms; empty when none.
  result<std::string> holder_of(const std::string& key, std::int64_t now_ms) {
    auto rows = db_->exec("SELECT owner FROM sessions WHERE key = $1 AND lease_until_ms >= $2",
                          pg_params().text(key).int64(now_ms), "cannot read session " + key);
    if (!rows) return rows.error();
    return rows->size() > 0 ? rows->text(0, 0) : std::string();
  }

  status insert_task(const task_record& task) {
    auto rows = db_->exec(insert_task_sql, task_params(task), "cannot store task " + task.id);
    if (rows) return {};
    if (db_->last_sqlstate() == detail::unique_violation) return detail::task_exists_error(task.id);
    return rows.error();
  }

  template <class R>
  R track(R r) {
    return health_.track(std::move(r));
  }

  std::mutex mutex_;  // serializes every use of db_
  std::unique_ptr<pg_connection> db_;
  const std::string url_;  // with its password: for the watcher's connection only
  const int version_;
  detail::health_tracker health_;
  std::mutex watch_mutex_;
  std::unique_ptr<detail::pg_watch> watch_;  // destroyed first: its thread calls out
};

}  // namespace

result<std::shared_ptr<blocking_task_store>> open_blocking_postgres_store(const std::string& url) {
  auto opened = detail::open_migrated_postgres(url);
  if (!opened) return opened.error();
  return std::shared_ptr<blocking_task_store>(
      std::make_shared<pg_task_store>(std::move(opened->db), url, opened->version));
}

}  // namespace harness::store
