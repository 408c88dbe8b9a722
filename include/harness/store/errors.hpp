// The error codes of the store component (the SQLite and PostgreSQL task stores). Each code is one row of the table
// below: X(enumerator, the wire name clients read, the HTTP status); adding the row is all a new code takes, and a wire
// name never changes (clients depend on it).
#pragma once

#include "harness/core/errc_table.hpp"

#define HARNESS_STORE_ERRORS(X)                                                     \
  X(open_failed, "store_open_failed", 500)                                          \
  X(migration_failed, "store_migration_failed", 500)                                \
  X(too_new, "store_too_new", 500)                                                  \
  X(busy, "store_busy", 503)                                                        \
  X(disk_full, "store_disk_full", 503)                                              \
  X(read_only, "store_read_only", 503)                                              \
  X(corrupt, "store_corrupt", 503)                                                  \
  X(io_error, "store_io_error", 503)                                                \
  X(error, "store_error", 503)                                                      \
  X(task_exists, "task_exists", 503)                                                \
  X(task_not_found, "task_not_found", 404)                                          \
  X(event_exists, "event_exists", 503)                                              \
  X(conversation_user_mismatch, "conversation_user_mismatch", 503)                  \
  X(user_limit, "user_limit", 429)                                                  \
  /* create_task_limited: the conversation has an unfinished task */                \
  X(conversation_running, "conversation_running", 409)                              \
  /* update_task: another replica marked the task interrupted (its lease lapsed) */ \
  X(task_interrupted, "task_interrupted", 409)

namespace harness::store {

enum class errc { HARNESS_ERRC_ENUMERATORS(HARNESS_STORE_ERRORS) };

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::store

template <>
struct boost::system::is_error_code_enum<harness::store::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::store::errc> = HARNESS_ERRC_COUNT(HARNESS_STORE_ERRORS);

namespace harness::store {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::store
