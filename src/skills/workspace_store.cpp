#include "harness/skills/workspace_store.hpp"

#include <fmt/format.h>

#include "change_set.hpp"
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
  workspace_store_impl(workspace_config config, std::shared_ptr<folder_set> tasks)
      : config_(std::move(config)), tasks_(std::move(tasks)) {}

  result<json> list(const std::string& task_id) const override {
    if (!is_storage_id(task_id)) return invalid_task(task_id);
    auto dir = tasks_->open(task_id);
    auto exists = dir->exists();
    if (!exists) return exists.error();
    if (!*exists) return no_workspace(task_id);
    auto files = dir->scan();
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
    auto dir = tasks_->open(task_id);
    auto exists = dir->exists();
    if (!exists) return exists.error();
    if (!*exists) return no_workspace(task_id);
    // A file on the host may have been placed by hand; never serve one past the write cap.
    return dir->read_file(path, config_.caps.max_total_bytes);
  }

  std::vector<bridge::init_file> init_files(const std::string& task_id) const override {
    std::vector<bridge::init_file> out;
    if (!is_storage_id(task_id)) return out;
    auto dir = tasks_->open(task_id);
    auto files = dir->scan();
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
      auto content = dir->read_file(path, config_.caps.max_file_bytes);
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
    return tasks_->change(
        task_id, [&](file_folder& dir) { return apply_change_set(dir, "workspace", changes, config_.caps, nullptr); });
  }

  status remove(const std::string& task_id) override {
    if (!is_storage_id(task_id)) return invalid_task(task_id);
    auto removed = tasks_->remove(task_id, "");
    if (!removed) return removed.error();
    return {};
  }

  std::size_t sweep(std::chrono::seconds retention, core::system_time now) override {
    const auto cutoff = std::chrono::file_clock::from_sys(now) - retention;
    auto removed = tasks_->remove_older_than(std::chrono::time_point_cast<fs::file_time_type::duration>(cutoff));
    if (removed > 0) core::log_info("workspace sweep removed {} workspaces older than {}s", removed, retention.count());
    return removed;
  }

 private:
  workspace_config config_;
  std::shared_ptr<folder_set> tasks_;  // serializes the changes of each task: the caps are counted before writing
};

}  // namespace

std::unique_ptr<workspace_store> create_workspace_store(workspace_config config, std::shared_ptr<folder_set> tasks) {
  return std::make_unique<workspace_store_impl>(std::move(config), std::move(tasks));
}

std::unique_ptr<workspace_store> create_workspace_store(workspace_config config) {
  auto tasks = disk_folders(config.dir, "WORKSPACE_DIR");
  return create_workspace_store(std::move(config), std::move(tasks));
}

}  // namespace harness::skills
