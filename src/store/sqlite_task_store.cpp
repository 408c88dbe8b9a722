// The SQLite task_store: one connection, serialized by a mutex, with cached
// prepared statements. Every value is bound as a parameter.
#include <algorithm>
#include <limits>
#include <mutex>

#include <sqlite3.h>

#include "harness/store/errors.hpp"
#include "harness/store/task_store.hpp"
#include "migrations.hpp"
#include "sqlite_db.hpp"
#include "sqlite_open.hpp"
#include "store_common.hpp"
#include "task_sql.hpp"

namespace harness::store {
namespace {

using detail::connection;
using detail::statement;
using detail::wall_clock_ms;

void bind_task(statement& st, const task_record& t) {
  st.bind(1, t.id).bind(2, t.user_id).bind(3, t.conversation_id).bind(4, t.task).bind(5, t.mode);
  st.bind(6, to_string(t.status));
  st.bind_json(7, t.result).bind_json(8, t.error).bind(9, std::int64_t{t.turns});
  st.bind(10, t.input_tokens).bind(11, t.output_tokens);
  st.bind(12, t.created_ms).bind(13, t.started_ms).bind(14, t.finished_ms).bind(15, t.key_id);
  st.bind(16, t.owner).bind(17, t.lease_until_ms).bind(18, t.language).bind(19, t.trace_id).bind_json(20, t.transcript);
}

result<task_record> read_task(const statement& st) {
  task_record t;
  t.id = st.text(0);
  t.user_id = st.text(1);
  t.conversation_id = st.text(2);
  t.task = st.text(3);
  t.mode = st.text(4);
  auto status_text = st.text(5);
  auto status = task_status_from_string(status_text);
  if (!status) return make_error(store::errc::corrupt, "task " + t.id + " has an unknown status '" + status_text + "'");
  t.status = *status;
  auto res = st.json(6, "cannot read task " + t.id);
  if (!res) return res.error();
  auto err = st.json(7, "cannot read task " + t.id);
  if (!err) return err.error();
  t.result = std::move(*res);
  t.error = std::move(*err);
  t.turns = static_cast<int>(st.int64(8));
  t.input_tokens = st.int64(9);
  t.output_tokens = st.int64(10);
  t.created_ms = st.int64(11);
  t.started_ms = st.int64(12);
  t.finished_ms = st.int64(13);
  t.key_id = st.text(14);
  t.owner = st.text(15);
  t.lease_until_ms = st.int64(16);
  t.language = st.text(17);
  t.trace_id = st.text(18);
  auto transcript = st.json(19, "cannot read task " + t.id);
  if (!transcript) return transcript.error();
  t.transcript = std::move(*transcript);
  return t;
}

std::int64_t clamp_limit(std::size_t limit, std::size_t max) {
  return static_cast<std::int64_t>(std::min(limit, max));
}

class sqlite_task_store final : public blocking_task_store {
 public:
  explicit sqlite_task_store(detail::opened_database db)
      : db_(std::move(db.db)), path_(std::move(db.path)), version_(db.version), journal_mode_(db.journal_mode) {}

  status create_task(const task_record& task) override {
    std::lock_guard lock(mutex_);
    return track(insert_task(task));
  }

  status create_task_limited(const task_record& task, std::size_t max_active) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      // IMMEDIATE takes the write lock before the count, so no other process
      // can insert between the count and the insert.
      if (auto s = db_->exec("BEGIN IMMEDIATE", "cannot start a transaction"); !s) return s;
      auto done = [&](status s) -> status {
        if (!s) {
          (void)db_->exec("ROLLBACK", "rollback");
          return s;
        }
        auto committed = db_->exec("COMMIT", "cannot commit task " + task.id);
        if (!committed) (void)db_->exec("ROLLBACK", "rollback");  // else every later BEGIN would fail
        return committed;
      };
      auto active = count_unfinished(task.user_id);
      if (!active) return done(active.error());
      if (*active >= max_active) return done(detail::user_limit_error(task.user_id, max_active));
      auto running = count_unfinished_in(task.conversation_id);
      if (!running) return done(running.error());
      if (*running > 0) return done(detail::conversation_running_error(task.conversation_id));
      return done(insert_task(task));
    }());
  }

  status update_task(const task_record& task) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto st = db_->prepare(
          "UPDATE tasks SET user_id = ?2, conversation_id = ?3, task = ?4, mode = ?5, status = ?6, result = ?7, "
          "error = ?8, turns = ?9, input_tokens = ?10, output_tokens = ?11, created_ms = ?12, started_ms = ?13, "
          "finished_ms = ?14, key_id = ?15, owner = ?16, lease_until_ms = max(lease_until_ms, ?17), language = ?18, "
          "trace_id = ?19, transcript = ?20 "
          "WHERE id = ?1 AND NOT (status = 'interrupted' AND ?6 <> 'interrupted')");
      if (!st) return st.error();
      bind_task(*st, task);
      if (auto s = st->run("cannot update task " + task.id); !s) return s;
      if (db_->changes() > 0) return {};
      auto exists = db_->prepare("SELECT 1 FROM tasks WHERE id = ?1");
      if (!exists) return exists.error();
      exists->bind(1, task.id);
      const int rc = exists->step();
      if (rc == SQLITE_ROW) return detail::task_interrupted_error(task.id);
      if (rc != SQLITE_DONE) return detail::sqlite_failure(db_->handle(), rc, "cannot read task " + task.id);
      return detail::task_not_found_error(task.id);
    }());
  }

  result<std::optional<task_record>> get_task(const std::string& id) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::optional<task_record>> {
      auto st = db_->prepare("SELECT " HARNESS_TASK_COLUMNS ", transcript FROM tasks WHERE id = ?1");
      if (!st) return st.error();
      st->bind(1, id);
      int rc = st->step();
      if (rc == SQLITE_DONE) return std::optional<task_record>();
      if (rc != SQLITE_ROW) return detail::sqlite_failure(db_->handle(), rc, "cannot read task " + id);
      auto t = read_task(*st);
      if (!t) return t.error();
      return std::optional<task_record>(std::move(*t));
    }());
  }

  result<std::vector<task_record>> list_tasks(const task_query& q) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::vector<task_record>> {
      auto st = db_->prepare(q.user_id.empty() ? detail::list_all_sql : detail::list_user_sql);
      if (!st) return st.error();
      const bool paged = q.before_ms != 0;
      if (!q.user_id.empty()) st->bind(1, q.user_id);
      st->bind(2, q.status ? to_string(*q.status) : std::string_view(""))
          .bind(3, paged ? q.before_ms : std::numeric_limits<std::int64_t>::max());
      st->bind(4, paged ? std::string_view(q.before_id) : std::string_view());
      st->bind(5, clamp_limit(q.limit, max_list_limit));
      std::vector<task_record> out;
      int rc;
      while ((rc = st->step()) == SQLITE_ROW) {
        auto t = read_task(*st);
        if (!t) return t.error();
        out.push_back(std::move(*t));
      }
      if (rc != SQLITE_DONE) return detail::sqlite_failure(db_->handle(), rc, "cannot list tasks");
      return out;
    }());
  }

  status append_event(const event_record& e) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto st = db_->prepare("INSERT INTO events (task_id, seq, type, data, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)");
      if (!st) return st.error();
      st->bind(1, e.task_id).bind(2, e.seq).bind(3, e.type).bind_json(4, e.data).bind(5, e.at_ms);
      int rc = st->step();
      if (rc == SQLITE_CONSTRAINT_PRIMARYKEY) return detail::event_exists_error(e.task_id, e.seq);
      if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) return detail::event_without_task_error(e.task_id);
      if (rc != SQLITE_DONE) return detail::sqlite_failure(db_->handle(), rc, "cannot store an event of " + e.task_id);
      return {};
    }());
  }

  result<std::vector<event_record>> events(const std::string& task_id, std::int64_t after_seq,
                                           std::size_t limit) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::vector<event_record>> {
      auto st = db_->prepare(detail::events_after_sql);
      if (!st) return st.error();
      st->bind(1, task_id).bind(2, after_seq).bind(3, clamp_limit(limit, std::numeric_limits<std::int64_t>::max()));
      std::vector<event_record> out;
      int rc;
      while ((rc = st->step()) == SQLITE_ROW) {
        event_record e{st->text(0), st->int64(1), st->text(2), nullptr, st->int64(4)};
        auto data = st->json(3, "cannot read an event of " + task_id);
        if (!data) return data.error();
        e.data = std::move(*data);
        out.push_back(std::move(e));
      }
      if (rc != SQLITE_DONE) return detail::sqlite_failure(db_->handle(), rc, "cannot read events of " + task_id);
      return out;
    }());
  }

  result<std::optional<conversation_record>> get_conversation(const std::string& id) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::optional<conversation_record>> {
      auto st =
          db_->prepare("SELECT id, user_id, messages, vault, created_ms, updated_ms FROM conversations WHERE id = ?1");
      if (!st) return st.error();
      st->bind(1, id);
      int rc = st->step();
      if (rc == SQLITE_DONE) return std::optional<conversation_record>();
      if (rc != SQLITE_ROW) return detail::sqlite_failure(db_->handle(), rc, "cannot read conversation " + id);
      conversation_record c{st->text(0), st->text(1), nullptr, nullptr, st->int64(4), st->int64(5)};
      auto messages = st->json(2, "cannot read conversation " + id);
      if (!messages) return messages.error();
      auto vault = st->json(3, "cannot read conversation " + id);
      if (!vault) return vault.error();
      c.messages = std::move(*messages);
      c.vault = std::move(*vault);
      return std::optional<conversation_record>(std::move(c));
    }());
  }

  status save_conversation(const conversation_record& c) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto st = db_->prepare(
          "INSERT INTO conversations (id, user_id, messages, vault, created_ms, updated_ms) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (id) DO UPDATE SET messages = excluded.messages, "
          "vault = excluded.vault, updated_ms = excluded.updated_ms WHERE conversations.user_id = excluded.user_id");
      if (!st) return st.error();
      st->bind(1, c.id).bind(2, c.user_id).bind_json(3, c.messages).bind_json(4, c.vault);
      st->bind(5, c.created_ms).bind(6, c.updated_ms);
      if (auto s = st->run("cannot store conversation " + c.id); !s) return s;
      if (db_->changes() == 0) return detail::conversation_user_mismatch_error(c.id);
      return {};
    }());
  }

  status record_usage(const std::string& user_id, const std::string& task_id, std::int64_t input_tokens,
                      std::int64_t output_tokens, std::int64_t at_ms) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto st = db_->prepare(
          "INSERT INTO usage (user_id, task_id, input_tokens, output_tokens, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)");
      if (!st) return st.error();
      st->bind(1, user_id).bind(2, task_id).bind(3, input_tokens).bind(4, output_tokens).bind(5, at_ms);
      return st->run("cannot record usage of " + task_id);
    }());
  }

  result<usage_totals> usage(const std::string& user_id, std::int64_t since_ms) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<usage_totals> {
      auto st = db_->prepare(user_id.empty() ? detail::usage_all_sql : detail::usage_user_sql);
      if (!st) return st.error();
      if (!user_id.empty()) st->bind(1, user_id);
      st->bind(2, since_ms);
      int rc = st->step();
      if (rc != SQLITE_ROW) return detail::sqlite_failure(db_->handle(), rc, "cannot sum usage");
      return usage_totals{st->int64(0), st->int64(1), st->int64(2)};
    }());
  }

  result<std::vector<std::string>> mark_interrupted(std::int64_t now_ms, const std::string& owner) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::vector<std::string>> {
      auto st = db_->prepare(
          "UPDATE tasks SET status = 'interrupted', error = ?1, finished_ms = ?2 WHERE status IN " HARNESS_UNFINISHED
          " AND (lease_until_ms < ?2 OR (?3 <> '' AND owner = ?3)) RETURNING id");
      if (!st) return st.error();
      st->bind_json(1, detail::interrupted_error()).bind(2, now_ms).bind(3, owner);
      std::vector<std::string> ids;
      int rc;
      while ((rc = st->step()) == SQLITE_ROW) ids.push_back(st->text(0));
      if (rc != SQLITE_DONE)
        return detail::sqlite_failure(db_->handle(), rc, "cannot mark unfinished tasks interrupted");
      std::sort(ids.begin(), ids.end());
      return ids;
    }());
  }

  result<std::size_t> renew_leases(const std::string& owner, std::int64_t until_ms) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::size_t> {
      auto st = db_->prepare("UPDATE tasks SET lease_until_ms = ?2 WHERE owner = ?1 AND status IN " HARNESS_UNFINISHED);
      if (!st) return st.error();
      st->bind(1, owner).bind(2, until_ms);
      if (auto s = st->run("cannot renew the leases of " + owner); !s) return s.error();
      const auto renewed = static_cast<std::size_t>(db_->changes());
      auto sessions = db_->prepare("UPDATE sessions SET lease_until_ms = ?2 WHERE owner = ?1");
      if (!sessions) return sessions.error();
      sessions->bind(1, owner).bind(2, until_ms);
      if (auto s = sessions->run("cannot renew the sessions of " + owner); !s) return s.error();
      return renewed;
    }());
  }

  result<std::string> hold_session(const std::string& key, const std::string& owner, std::int64_t now_ms,
                                   std::int64_t until_ms) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::string> {
      // Taken over only from a holder whose lease has passed.
      auto st = db_->prepare(
          "INSERT INTO sessions (key, owner, lease_until_ms) VALUES (?1, ?2, ?4) ON CONFLICT (key) DO UPDATE SET "
          "owner = excluded.owner, lease_until_ms = excluded.lease_until_ms "
          "WHERE sessions.owner = excluded.owner OR sessions.lease_until_ms < ?3");
      if (!st) return st.error();
      st->bind(1, key).bind(2, owner).bind(3, now_ms).bind(4, until_ms);
      if (auto s = st->run("cannot hold session " + key); !s) return s.error();
      return holder_of(key, std::numeric_limits<std::int64_t>::min());
    }());
  }

  status release_session(const std::string& key, const std::string& owner) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto st = db_->prepare("DELETE FROM sessions WHERE key = ?1 AND owner = ?2");
      if (!st) return st.error();
      st->bind(1, key).bind(2, owner);
      return st->run("cannot release session " + key);
    }());
  }

  result<std::string> session_holder(const std::string& key, std::int64_t now_ms) override {
    std::lock_guard lock(mutex_);
    return track(holder_of(key, now_ms));
  }

  result<std::size_t> forget_vaults_before(std::int64_t cutoff_ms, const nlohmann::json& empty) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::size_t> {
      auto st = db_->prepare("UPDATE conversations SET vault = ?2 WHERE updated_ms < ?1 AND vault <> ?2");
      if (!st) return st.error();
      st->bind(1, cutoff_ms).bind_json(2, empty);
      if (auto s = st->run("cannot empty old vaults"); !s) return s.error();
      return static_cast<std::size_t>(db_->changes());
    }());
  }

  status put_credential(const credential_record& c) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> status {
      auto st = db_->prepare(
          "INSERT INTO credentials (user_id, kind, name, sealed, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5) "
          "ON CONFLICT (user_id, kind, name) DO UPDATE SET sealed = excluded.sealed, updated_ms = excluded.updated_ms");
      if (!st) return st.error();
      st->bind(1, c.user_id).bind(2, c.kind).bind(3, c.name).bind(4, c.sealed).bind(5, c.updated_ms);
      return st->run("cannot store a credential");
    }());
  }

  result<std::optional<credential_record>> get_credential(const std::string& user_id, const std::string& kind,
                                                          const std::string& name) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::optional<credential_record>> {
      auto rows = credentials_of(user_id, kind, &name);
      if (!rows) return rows.error();
      if (rows->empty()) return std::optional<credential_record>();
      return std::optional<credential_record>(std::move(rows->front()));
    }());
  }

  result<std::vector<credential_record>> list_credentials(const std::string& user_id,
                                                          const std::string& kind) override {
    std::lock_guard lock(mutex_);
    return track(credentials_of(user_id, kind, nullptr));
  }

  result<bool> delete_credential(const std::string& user_id, const std::string& kind,
                                 const std::string& name) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<bool> {
      auto st = db_->prepare("DELETE FROM credentials WHERE user_id = ?1 AND kind = ?2 AND name = ?3");
      if (!st) return st.error();
      st->bind(1, user_id).bind(2, kind).bind(3, name);
      if (auto s = st->run("cannot delete a credential"); !s) return s.error();
      return db_->changes() > 0;
    }());
  }

  result<std::size_t> delete_finished_before(std::int64_t cutoff_ms) override {
    std::lock_guard lock(mutex_);
    return track([&]() -> result<std::size_t> {
      // Events go with their task through ON DELETE CASCADE, in the same statement.
      auto st = db_->prepare(
          "DELETE FROM tasks WHERE finished_ms > 0 AND finished_ms < ?1 AND status NOT IN ('queued', 'running', "
          "'awaiting_approval')");
      if (!st) return st.error();
      st->bind(1, cutoff_ms);
      if (auto s = st->run("cannot delete old tasks"); !s) return s.error();
      return static_cast<std::size_t>(db_->changes());
    }());
  }

  int schema_version() const override { return version_; }

  core::component_health health() const override {
    return health_.report(
        {{"backend", "sqlite"}, {"path", path_.string()}, {"schemaVersion", version_}, {"journalMode", journal_mode_}});
  }

 private:
  // The holder of session `key` with a lease not passed at now_ms; empty when none.
  result<std::string> holder_of(const std::string& key, std::int64_t now_ms) {
    auto st = db_->prepare("SELECT owner FROM sessions WHERE key = ?1 AND lease_until_ms >= ?2");
    if (!st) return st.error();
    st->bind(1, key).bind(2, now_ms);
    int rc = st->step();
    if (rc == SQLITE_DONE) return std::string();
    if (rc != SQLITE_ROW) return detail::sqlite_failure(db_->handle(), rc, "cannot read session " + key);
    return st->text(0);
  }

  result<std::size_t> count_unfinished(const std::string& user_id) {
    auto st = db_->prepare("SELECT count(*) FROM tasks WHERE user_id = ?1 AND status IN " HARNESS_UNFINISHED);
    if (!st) return st.error();
    st->bind(1, user_id);
    int rc = st->step();
    if (rc != SQLITE_ROW) return detail::sqlite_failure(db_->handle(), rc, "cannot count the tasks of " + user_id);
    return static_cast<std::size_t>(st->int64(0));
  }

  result<std::size_t> count_unfinished_in(const std::string& conversation_id) {
    auto st = db_->prepare("SELECT count(*) FROM tasks WHERE conversation_id = ?1 AND status IN " HARNESS_UNFINISHED);
    if (!st) return st.error();
    st->bind(1, conversation_id);
    int rc = st->step();
    if (rc != SQLITE_ROW) {
      return detail::sqlite_failure(db_->handle(), rc, "cannot count the tasks of conversation " + conversation_id);
    }
    return static_cast<std::size_t>(st->int64(0));
  }

  // A user's credentials of `kind` by name; only `name`'s when it is given.
  result<std::vector<credential_record>> credentials_of(const std::string& user_id, const std::string& kind,
                                                        const std::string* name) {
    auto st = db_->prepare(
        "SELECT name, sealed, updated_ms FROM credentials WHERE user_id = ?1 AND kind = ?2 "
        "AND (?3 IS NULL OR name = ?3) ORDER BY name");
    if (!st) return st.error();
    st->bind(1, user_id).bind(2, kind);
    if (name) st->bind(3, *name);
    std::vector<credential_record> out;
    for (int rc = st->step();; rc = st->step()) {
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return detail::sqlite_failure(db_->handle(), rc, "cannot read credentials");
      out.push_back({user_id, kind, st->text(0), st->text(1), st->int64(2)});
    }
    return out;
  }

  status insert_task(const task_record& task) {
    auto st = db_->prepare("INSERT INTO tasks (" HARNESS_TASK_COLUMNS
                           ", transcript) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
                           "?16, ?17, ?18, ?19, ?20)");
    if (!st) return st.error();
    bind_task(*st, task);
    int rc = st->step();
    if (rc == SQLITE_CONSTRAINT_PRIMARYKEY) return detail::task_exists_error(task.id);
    if (rc != SQLITE_DONE) return detail::sqlite_failure(db_->handle(), rc, "cannot store task " + task.id);
    return {};
  }

  template <class R>
  R track(R r) {
    return health_.track(std::move(r));
  }

  std::mutex mutex_;  // serializes every use of db_
  std::unique_ptr<connection> db_;
  const std::filesystem::path path_;
  const int version_;
  const std::string journal_mode_;

  detail::health_tracker health_;
};

}  // namespace

result<std::shared_ptr<blocking_task_store>> open_blocking_sqlite_store(const std::filesystem::path& file) {
  auto db = detail::open_database(file, detail::builtin_migrations(), wall_clock_ms());
  if (!db) return db.error();
  return std::shared_ptr<blocking_task_store>(std::make_shared<sqlite_task_store>(std::move(*db)));
}

result<std::shared_ptr<task_store>> open_sqlite_store(const std::filesystem::path& file) {
  auto backend = open_blocking_sqlite_store(file);
  if (!backend) return backend.error();
  return run_on_store_thread(std::move(*backend));
}

int latest_schema_version() {
  return detail::builtin_migrations().back().version;
}

}  // namespace harness::store
