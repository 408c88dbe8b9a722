// Task workspaces: the files a task's sandbox wrote to /workspace, kept on the
// host under <workspace_config::dir>/<taskId>/ so that the caller can download
// them and a later block of the same task (possibly in a fresh sandbox) sees
// them again. A background sweep removes workspaces nobody wrote for a while.
//
// Every method is thread-safe and does blocking filesystem work: call it from
// a worker thread, not from the I/O thread (small reads from a route are fine).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <nlohmann/json.hpp>

#include "harness/bridge/runtime_session.hpp"
#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/skills/file_folders.hpp"
#include "harness/skills/file_rules.hpp"
#include "harness/skills/skills_config.hpp"

namespace harness::skills {

class workspace_store {
 public:
  virtual ~workspace_store() = default;

  // [{path, size, modified: ISO-8601 UTC}] sorted by path. Errors:
  // invalid_task_id, workspace_not_found, storage_error.
  virtual result<nlohmann::json> list(const std::string& task_id) const = 0;

  // The bytes of one file (the path passes the same rules as a write).
  // Errors: invalid_task_id, invalid_path, workspace_not_found, file_not_found,
  // storage_error.
  virtual result<std::string> read(const std::string& task_id, const std::string& path) const = 0;

  // The task's existing files for the `init` frame (root "workspace"), within
  // the caps; empty for a new task or an invalid id.
  virtual std::vector<bridge::init_file> init_files(const std::string& task_id) const = 0;

  // Validates, then writes, the root "workspace" entries of an exec's changed
  // files (other roots are ignored), with the workspace caps. Same rules and
  // reporting as skill_library::apply_changes.
  virtual apply_report apply_changes(const std::string& task_id, const std::vector<bridge::file_change>& changes) = 0;

  // Removes the task's workspace; a missing one is not an error.
  // Errors: invalid_task_id, storage_error.
  virtual status remove(const std::string& task_id) = 0;

  // Removes every workspace whose newest file (or, when empty, the folder
  // itself) was modified more than `retention` ago. Returns how many it removed.
  virtual std::size_t sweep(std::chrono::seconds retention, core::system_time now) = 0;
};

// Creates the folder when missing; throws only if it cannot (the server
// checks that first with core::ensure_writable_dir, naming WORKSPACE_DIR).
std::unique_ptr<workspace_store> create_workspace_store(workspace_config config);

// The same store with the workspaces kept in `tasks` (one folder per task id;
// e.g. rows in PostgreSQL shared by replicas, harness/store/pg_files.hpp).
std::unique_ptr<workspace_store> create_workspace_store(workspace_config config, std::shared_ptr<folder_set> tasks);

// A periodic sweep; stop() (or destruction) ends it. A sweep already running
// finishes first, on its worker.
class sweeper {
 public:
  virtual ~sweeper() = default;
  virtual void stop() = 0;
};

// At once and then every `interval` of `clock`, a periodic job on
// `timer_executor` (the I/O thread) hands one sweep(retention, now) to
// `blocking_executor` (the thread pool), so the I/O thread only ever arms a
// timer. Sweeps never overlap. `store` is kept alive until the sweeper stops.
std::unique_ptr<sweeper> start_sweeper(std::shared_ptr<workspace_store> store, core::clock& clock,
                                       const boost::asio::any_io_executor& timer_executor,
                                       const boost::asio::any_io_executor& blocking_executor,
                                       std::chrono::seconds interval, std::chrono::seconds retention);

}  // namespace harness::skills
