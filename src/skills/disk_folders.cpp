// Folders <root>/<owner>/ on the host, each a confined_dir; one mutex
// serializes the changes (the caps are counted before writing).
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "confined_dir.hpp"
#include "harness/core/logging.hpp"
#include "harness/skills/file_folders.hpp"

namespace harness::skills {
namespace {

namespace fs = std::filesystem;

class disk_folder_set final : public folder_set {
 public:
  disk_folder_set(fs::path root, std::string_view setting) : root_(std::move(root)) {
    std::error_code ec;
    fs::create_directories(root_, ec);
    if (ec) {
      throw std::runtime_error(
          fmt::format("cannot create the folder {} ({}): {}", root_.string(), setting, ec.message()));
    }
  }

  std::unique_ptr<const file_folder> open(const std::string& owner) const override {
    return std::make_unique<confined_dir>(root_, owner);
  }

  apply_report change(const std::string& owner, const std::function<apply_report(file_folder&)>& body) override {
    std::lock_guard lock(mutex_);
    confined_dir dir(root_, owner);
    return body(dir);
  }

  result<bool> remove(const std::string& owner, const std::string& sub) override {
    std::lock_guard lock(mutex_);
    if (sub.empty()) {
      auto removed = confined_dir(root_, owner).remove_all();
      if (!removed) return removed.error();
      return true;
    }
    std::error_code ec;
    fs::path owner_dir = root_ / owner;
    if (!fs::is_directory(fs::symlink_status(owner_dir, ec)) || !fs::exists(fs::symlink_status(owner_dir / sub, ec))) {
      return false;
    }
    auto removed = confined_dir(owner_dir, sub).remove_all();
    if (!removed) return removed.error();
    return true;
  }

  std::size_t remove_older_than(fs::file_time_type cutoff) override {
    std::size_t removed = 0;
    std::vector<std::string> owners;
    std::error_code ec;
    for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code kind_ec;
      std::string owner = it->path().filename().string();
      // Only folders an owner could have; README.md and anything odd stay.
      if (is_storage_id(owner) && fs::is_directory(it->symlink_status(kind_ec))) owners.push_back(owner);
    }
    for (const auto& owner : owners) {
      // Decided and removed under the lock, so a write to the same folder is
      // either before (and makes it fresh) or after (and recreates it).
      std::lock_guard lock(mutex_);
      confined_dir dir(root_, owner);
      if (dir.newest_change() >= cutoff) continue;
      if (auto gone = dir.remove_all(); !gone) {
        core::log_warn("sweep: cannot remove {}: {}", dir.where(), gone.error().describe());
        continue;
      }
      ++removed;
    }
    if (ec) core::log_warn("sweep of {} stopped early: {}", root_.string(), ec.message());
    return removed;
  }

 private:
  fs::path root_;
  std::mutex mutex_;
};

}  // namespace

std::shared_ptr<folder_set> disk_folders(fs::path root, std::string_view setting) {
  return std::make_shared<disk_folder_set>(std::move(root), setting);
}

}  // namespace harness::skills
