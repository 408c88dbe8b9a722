#include "harness/skills/workspace_store.hpp"

#include <mutex>

#include <fmt/format.h>

#include "change_set.hpp"
#include "confined_dir.hpp"
#include "harness/core/logging.hpp"
#include "harness/skills/errors.hpp"

namespace harness::skills {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

error invalid_task(const std::string& task_id) {
  return make_error(skills::errc::invalid_task_id, fmt::format("'{}' is not a valid task id", task_id),
                    "a task id is 1-64 characters of letters, digits, '_', '.' or '-'");
}

error no_workspace(const std::string& task_id) {
  return make_error(skills::errc::workspace_not_found, fmt::format("task '{}' has no files", task_id),
                    "a task's workspace exists once its code writes to /workspace, and is removed after "
                    "WORKSPACE_RETENTION");
}

class workspace_store_impl final : public workspace_store {
 public:
  explicit workspace_store_impl(workspace_config config) : config_(std::move(config)) {
    std::error_code ec;
    fs::create_directories(config_.dir, ec);
    if (ec) {
      throw std::runtime_error(
          fmt::format("cannot create the workspace folder {}: {}", config_.dir.string(), ec.message()));
    }
  }

  result<json> list(const std::string& task_id) const override {
    if (!is_storage_id(task_id)) return invalid_task(task_id);
    confined_dir dir(config_.dir, task_id);
    if (!dir.exists()) return no_workspace(task_id);
    auto files = dir.scan();
    if (!files) return files.error();
    json out = json::array();
    for (const auto& [path, file] : *files) {
      out.push_back({{"path", path}, {"size", file.size}, {"modified", iso_time(file.modified)}});
    }
    return out;
  }

  result<std::string> read(const std::string& task_id, const std::string& path) const override {
    if (!is_storage_id(task_id)) return invalid_task(task_id);
    if (auto bad = check_relative_path(path)) {
      return make_error(skills::errc::invalid_path, fmt::format("the path is not accepted: {}", bad->message),
                        "use a path from GET /tasks/{id}/files");
    }
    confined_dir dir(config_.dir, task_id);
    if (!dir.exists()) return no_workspace(task_id);
    // A file on the host may have been placed by hand; never serve one past the write cap.
    return dir.read_file(path, config_.caps.max_total_bytes);
  }

  std::vector<bridge::init_file> init_files(const std::string& task_id) const override {
    std::vector<bridge::init_file> out;
    if (!is_storage_id(task_id)) return out;
    confined_dir dir(config_.dir, task_id);
    auto files = dir.scan();
    if (!files) {
      core::log_warn("cannot read the workspace of task {}: {}", task_id, files.error().describe());
      return out;
    }
    std::size_t bytes = 0;
    std::vector<std::string> left_out;
    for (const auto& [path, file] : *files) {
      if (out.size() >= config_.caps.max_files || bytes + file.size > config_.caps.max_total_bytes) {
        left_out.push_back(path);
        continue;
      }
      auto content = dir.read_file(path, config_.caps.max_file_bytes);
      if (!content) {
        left_out.push_back(path);
        continue;
      }
      bytes += content->size();
      out.push_back({"workspace", path, std::move(*content)});
    }
    if (!left_out.empty()) {
      core::log_warn("{} workspace files of task {} left out of the sandbox (over the caps or unreadable), first: {}",
                     left_out.size(), task_id, left_out.front());
    }
    return out;
  }

  apply_report apply_changes(const std::string& task_id, const std::vector<bridge::file_change>& changes) override {
    if (!is_storage_id(task_id)) {
      return refuse_all("workspace", changes, {"invalid_task_id", "the task id cannot name a folder"});
    }
    std::lock_guard lock(mutex_);
    confined_dir dir(config_.dir, task_id);
    return apply_change_set(dir, "workspace", changes, config_.caps, nullptr);
  }

  status remove(const std::string& task_id) override {
    if (!is_storage_id(task_id)) return invalid_task(task_id);
    std::lock_guard lock(mutex_);
    return confined_dir(config_.dir, task_id).remove_all();
  }

  std::size_t sweep(std::chrono::seconds retention) override {
    auto cutoff = fs::file_time_type::clock::now() - retention;
    std::size_t removed = 0;
    std::vector<std::string> task_ids;
    std::error_code ec;
    for (fs::directory_iterator it(config_.dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code kind_ec;
      std::string task_id = it->path().filename().string();
      // Only folders a task could own; README.md and anything odd stay.
      if (is_storage_id(task_id) && fs::is_directory(it->symlink_status(kind_ec))) task_ids.push_back(task_id);
    }
    for (const auto& task_id : task_ids) {
      // Decided and removed under the lock, so a write of the same task is
      // either before (and makes it fresh) or after (and recreates it).
      std::lock_guard lock(mutex_);
      confined_dir dir(config_.dir, task_id);
      if (dir.newest_change() >= cutoff) continue;
      if (auto gone = dir.remove_all(); !gone) {
        core::log_warn("workspace sweep: cannot remove {}: {}", task_id, gone.error().describe());
        continue;
      }
      ++removed;
    }
    if (ec) core::log_warn("workspace sweep stopped early: {}", ec.message());
    if (removed > 0) core::log_info("workspace sweep removed {} workspaces older than {}s", removed, retention.count());
    return removed;
  }

 private:
  workspace_config config_;
  std::mutex mutex_;  // one writer at a time: the caps are counted before writing
};

}  // namespace

std::unique_ptr<workspace_store> create_workspace_store(workspace_config config) {
  return std::make_unique<workspace_store_impl>(std::move(config));
}

}  // namespace harness::skills
