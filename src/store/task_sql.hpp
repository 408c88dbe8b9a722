// SQL text of the task store's statements that tests inspect (query plans).
// Every value goes in through a ?N parameter.
#pragma once

#include <string_view>

namespace harness::store::detail {

// Column order shared by every task SELECT and by bind_task (parameters 1..20,
// the transcript last), in both backends.
#define HARNESS_TASK_COLUMNS                                                                              \
  "id, user_id, conversation_id, task, mode, status, result, error, turns, input_tokens, output_tokens, " \
  "created_ms, started_ms, finished_ms, key_id, owner, lease_until_ms, language, trace_id"

// The statuses of an unfinished task, as an SQL list.
#define HARNESS_UNFINISHED "('queued', 'running', 'awaiting_approval')"

// The message of the error a task gets when mark_interrupted takes it.
constexpr std::string_view interrupted_message = "the server stopped before the task finished; send it again";

// Two statements each rather than "(?1 = '' OR user_id = ?1)", which would keep
// SQLite from using the index on user_id.
constexpr std::string_view list_all_sql =
    "SELECT " HARNESS_TASK_COLUMNS
    ", '[]' FROM tasks WHERE (?2 = '' OR status = ?2) AND (created_ms < ?3 OR (created_ms = ?3 AND id < ?4)) "
    "ORDER BY created_ms DESC, id DESC LIMIT ?5";
constexpr std::string_view list_user_sql =
    "SELECT " HARNESS_TASK_COLUMNS
    ", '[]' FROM tasks WHERE user_id = ?1 AND (?2 = '' OR status = ?2) "
    "AND (created_ms < ?3 OR (created_ms = ?3 AND id < ?4)) ORDER BY created_ms DESC, id DESC LIMIT ?5";
constexpr std::string_view usage_all_sql =
    "SELECT count(DISTINCT task_id), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0) FROM usage "
    "WHERE at_ms >= ?2";
constexpr std::string_view usage_user_sql =
    "SELECT count(DISTINCT task_id), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0) FROM usage "
    "WHERE user_id = ?1 AND at_ms >= ?2";

constexpr std::string_view events_after_sql =
    "SELECT task_id, seq, type, data, at_ms FROM events WHERE task_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3";

}  // namespace harness::store::detail
