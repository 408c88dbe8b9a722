// What both backends of the task store share: the errors a caller causes, the
// error of an interrupted task, and the bookkeeping behind health().
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/core/health.hpp"

namespace harness::store::detail {

std::int64_t wall_clock_ms();

// Text of a JSON value for a text column; invalid UTF-8 inside strings becomes
// U+FFFD instead of throwing. Never holds a NUL byte (JSON escapes it).
std::string dump_json(const nlohmann::json& value);
// Parses a JSON column; "store_corrupt" naming the column when it is not JSON.
result<nlohmann::json> parse_json_column(std::string_view text, std::string_view what, std::string_view column);

error task_exists_error(const std::string& task_id);
error task_not_found_error(const std::string& task_id);
// update_task's refusal to overwrite a task another replica marked interrupted.
error task_interrupted_error(const std::string& task_id);
error event_exists_error(const std::string& task_id, std::int64_t seq);
error event_without_task_error(const std::string& task_id);
error conversation_user_mismatch_error(const std::string& conversation_id);
error user_limit_error(const std::string& user_id, std::size_t max_active);
// create_task_limited's refusal while the task's conversation has an unfinished task.
error conversation_running_error(const std::string& conversation_id);
// {"code":"interrupted","message":...}: what mark_interrupted stores.
const nlohmann::json& interrupted_error();

// Counts the calls of a store and remembers its last storage failure, for
// health(). Errors the caller caused (task_exists, task_not_found...) say
// nothing about the storage; "store_*" ones do. Thread-safe; its lock is never
// held while the database is touched.
class health_tracker {
 public:
  template <class R>
  R track(R r) {
    if (r) {
      note(nullptr);
    } else {
      const error e = r.error();
      note(&e);
    }
    return r;
  }
  // up, required, and `detail` with operations, failures and lastError added.
  core::component_health report(nlohmann::json detail) const;

 private:
  void note(const error* failure);

  mutable std::mutex mutex_;
  std::int64_t operations_ = 0, failures_ = 0;
  bool last_ok_ = true;
  std::optional<error> last_error_;
  std::int64_t last_error_ms_ = 0;
};

}  // namespace harness::store::detail
