#include "store_common.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/json_parse.hpp"

#include <chrono>

#include "harness/store/errors.hpp"
#include "task_sql.hpp"

namespace harness::store::detail {
namespace {

bool is_storage_failure(const error_code& code) {
  for (errc storage : {errc::open_failed, errc::migration_failed, errc::too_new, errc::busy, errc::disk_full,
                       errc::read_only, errc::corrupt, errc::io_error, errc::error}) {
    if (code == storage) return true;
  }
  return false;
}

}  // namespace

std::int64_t wall_clock_ms() {
  // Stamps written into the store (migrations, file rows, the last error) are
  // compared across processes and replicas: they are the real clock's.
  return core::real_clock().epoch_ms();
}

std::string dump_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

result<nlohmann::json> parse_json_column(std::string_view text, std::string_view what, std::string_view column) {
  auto parsed = core::parse_json(text);
  if (parsed.is_discarded()) {
    return make_error(errc::corrupt, std::string(what) + ": column '" + std::string(column) + "' does not hold JSON",
                      "the row was changed outside this server; fix or delete it");
  }
  return parsed;
}

error task_exists_error(const std::string& task_id) {
  return make_error(errc::task_exists, "a task with id '" + task_id + "' is stored already");
}

error task_not_found_error(const std::string& task_id) {
  return make_error(errc::task_not_found, "no task with id '" + task_id + "'");
}

error event_exists_error(const std::string& task_id, std::int64_t seq) {
  return make_error(errc::event_exists,
                    "task '" + task_id + "' has an event with seq " + std::to_string(seq) + " already");
}

error event_without_task_error(const std::string& task_id) {
  return make_error(errc::task_not_found, "no task with id '" + task_id + "' to add an event to");
}

error conversation_user_mismatch_error(const std::string& conversation_id) {
  return make_error(errc::conversation_user_mismatch, "conversation '" + conversation_id + "' belongs to another user",
                    "start a new conversation");
}

error user_limit_error(const std::string& user_id, std::size_t max_active) {
  return make_error(errc::user_limit,
                    "user '" + user_id + "' has " + std::to_string(max_active) + " unfinished task(s) already",
                    "wait until one of them finishes, or cancel one");
}

error task_interrupted_error(const std::string& task_id) {
  return make_error(errc::task_interrupted,
                    "task '" + task_id + "' was marked interrupted (its lease lapsed); it stays interrupted",
                    "send the task again");
}

error conversation_running_error(const std::string& conversation_id) {
  return make_error(errc::conversation_running,
                    "conversation '" + conversation_id + "' has an unfinished task (on this or another replica)",
                    "wait for it to end, then send the follow-up");
}

const nlohmann::json& interrupted_error() {
  static const nlohmann::json error = {{"code", "interrupted"}, {"message", std::string(interrupted_message)}};
  return error;
}

core::component_health health_tracker::report(nlohmann::json detail) const {
  std::lock_guard lock(mutex_);
  core::component_health h;
  h.required = true;
  h.up = last_ok_;
  h.detail = std::move(detail);
  h.detail["operations"] = operations_;
  h.detail["failures"] = failures_;
  if (last_error_) {
    h.detail["lastError"] = {
        {"code", last_error_->code.wire_name()}, {"message", last_error_->message}, {"atMs", last_error_ms_}};
  }
  return h;
}

void health_tracker::note(const error* failure) {
  const bool storage_failed = failure != nullptr && is_storage_failure(failure->code);
  std::lock_guard lock(mutex_);
  ++operations_;
  if (storage_failed) {
    ++failures_;
    last_ok_ = false;
    last_error_ = *failure;
    last_error_ms_ = wall_clock_ms();
  } else {
    last_ok_ = true;
  }
}

}  // namespace harness::store::detail
