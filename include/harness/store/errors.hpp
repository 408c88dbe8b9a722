// The error codes of the store component (the SQLite and PostgreSQL task stores). Each value has
// its wire name and HTTP status in src/store/errors.cpp; add a code there and here.
#pragma once

#include "harness/core/error_code.hpp"

namespace harness::store {

enum class errc {
  open_failed = 1,
  migration_failed,
  too_new,
  busy,
  disk_full,
  read_only,
  corrupt,
  io_error,
  error,
  task_exists,
  task_not_found,
  event_exists,
  conversation_user_mismatch,
  user_limit,
  conversation_running,  // create_task_limited: the conversation has an unfinished task
  task_interrupted,      // update_task: another replica marked the task interrupted (its lease lapsed)
};

const harness::error_category& errc_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), errc_category()};
}

}  // namespace harness::store

template <>
struct boost::system::is_error_code_enum<harness::store::errc> : std::true_type {};

template <>
inline constexpr int harness::errc_count<harness::store::errc> = 16;

namespace harness::store {

// Prints the wire name (gtest, logs).
inline std::ostream& operator<<(std::ostream& os, errc e) {
  return os << harness::error_code(e);
}

}  // namespace harness::store
