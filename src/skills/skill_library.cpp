#include "harness/skills/skill_library.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "change_set.hpp"
#include "confined_dir.hpp"
#include "harness/core/logging.hpp"
#include "harness/execution/sandbox_files.hpp"
#include "harness/skills/errors.hpp"
#include "harness/skills/front_matter.hpp"

namespace harness::skills {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr std::size_t skill_md_max_bytes = 256 * 1024;

// A skill's files, keyed by the path inside the skill folder.
using skill_files = std::map<std::string, stored_file>;
// Skill folder name -> its files.
using skill_map = std::map<std::string, skill_files>;

skill_map group_by_skill(const file_map& files) {
  skill_map skills;
  for (const auto& [path, file] : files) {
    auto slash = path.find('/');
    if (slash == std::string::npos) continue;  // a loose file beside the skill folders is no skill
    skills[path.substr(0, slash)][path.substr(slash + 1)] = file;
  }
  return skills;
}

error invalid_user(const std::string& user_id) {
  return make_error(skills::errc::invalid_user_id, fmt::format("'{}' is not a valid user id", user_id),
                    "a user id is 1-64 characters of letters, digits, '_', '.' or '-', and not '.' or '..'");
}

error invalid_name(const std::string& name) {
  return make_error(skills::errc::invalid_skill_name, fmt::format("'{}' is not a valid skill name", name),
                    "a skill name is 1-64 characters of lowercase letters, digits and '-', not starting with '-'");
}

// The rule a path under /skills must pass on top of the shared rules.
std::optional<path_problem> skill_path_rule(const std::string& path) {
  auto slash = path.find('/');
  std::string first = path.substr(0, slash);
  if (first == "examples") {
    return path_problem{"read_only", "the examples are read-only; copy one to /skills/<new-name>/ to change it"};
  }
  if (slash == std::string::npos) {
    return path_problem{"not_in_skill", "save files inside a skill folder: /skills/<skill-name>/<file>"};
  }
  if (!is_skill_name(first)) {
    return path_problem{"invalid_skill_name",
                        fmt::format("'{}' is not a valid skill name: use lowercase letters, digits and '-' "
                                    "(at most 64, not starting with '-')",
                                    first)};
  }
  return std::nullopt;
}

class skill_library_impl final : public skill_library {
 public:
  skill_library_impl(skill_config config, std::shared_ptr<folder_set> users)
      : config_(std::move(config)), users_(std::move(users)), examples_(config_.dir, "examples") {
    std::error_code ec;
    if (!fs::is_directory(config_.dir / "examples", ec)) {
      core::log_warn("no example skills: {} is not a folder (SKILLS_DIR)", (config_.dir / "examples").string());
    }
  }

  result<json> list(const std::string& user_id) const override {
    if (!is_storage_id(user_id)) return invalid_user(user_id);
    json out = json::array();
    for (auto owner : {"user", "example"}) {
      auto dir = folder_of(owner, user_id);
      auto files = dir->scan();
      if (!files) return files.error();
      for (const auto& [name, skill] : group_by_skill(*files)) {
        json entry = describe(*dir, owner, name, skill);
        json paths = json::array();
        for (const auto& [path, file] : skill) paths.push_back(path);
        entry["files"] = std::move(paths);
        out.push_back(std::move(entry));
      }
    }
    return out;
  }

  result<json> get(const std::string& user_id, const std::string& name) const override {
    if (!is_storage_id(user_id)) return invalid_user(user_id);
    if (!is_skill_name(name)) return invalid_name(name);
    auto found = find_skill(user_id, name);
    if (!found) return found.error();
    if (!*found) return no_such_skill(name);
    const auto& skill = **found;
    json entry = describe(*skill.dir, skill.owner, name, skill.files);
    json list = json::array();
    for (const auto& [path, file] : skill.files) list.push_back({{"path", path}, {"size", file.size}});
    entry["files"] = std::move(list);
    auto md = skill.dir->read_file(name + "/SKILL.md", skill_md_max_bytes);
    entry["skillMd"] = md ? json(*md) : json(nullptr);
    return entry;
  }

  result<std::string> read_file(const std::string& user_id, const std::string& name,
                                const std::string& path) const override {
    if (!is_storage_id(user_id)) return invalid_user(user_id);
    if (!is_skill_name(name)) return invalid_name(name);
    auto found = find_skill(user_id, name);
    if (!found) return found.error();
    if (!*found) return no_such_skill(name);
    // Only a path the scan listed: nothing outside the skill's own files is reachable.
    if (!(*found)->files.contains(path)) {
      return make_error(skills::errc::file_not_found, fmt::format("skill '{}' has no file '{}'", name, path),
                        "GET /skills/{userId}/{name} lists its files");
    }
    return (*found)->dir->read_file(name + "/" + path, config_.caps.max_file_bytes);
  }

  status remove(const std::string& user_id, const std::string& name) override {
    if (!is_storage_id(user_id)) return invalid_user(user_id);
    if (!is_skill_name(name)) return invalid_name(name);
    auto removed = users_->remove(user_id, name);
    if (!removed) return removed.error();
    if (*removed) {
      core::log_info("removed skill {} of user {}", name, user_id);
      return {};
    }
    std::error_code ec;
    if (fs::exists(fs::symlink_status(config_.dir / "examples" / name, ec))) {
      return make_error(skills::errc::skill_read_only,
                        fmt::format("'{}' is a shipped example and cannot be removed", name),
                        "examples are read-only; only your own skills can be deleted");
    }
    return no_such_skill(name);
  }

  std::vector<bridge::init_file> init_files(const std::string& user_id) const override {
    std::vector<bridge::init_file> out;
    if (is_storage_id(user_id)) add_init_files("user", "", user_id, out);
    return out;
  }

  std::vector<bridge::init_file> example_files() const override {
    std::vector<bridge::init_file> out;
    add_init_files("example", "examples/", "", out);
    return out;
  }

  apply_report apply_changes(const std::string& user_id, const std::vector<bridge::file_change>& changes) override {
    if (!is_storage_id(user_id)) {
      return refuse_all("skills", changes, {"invalid_user_id", "the task's user id cannot name a folder"});
    }
    auto report = users_->change(user_id, [&](file_folder& dir) {
      return apply_change_set(dir, "skills", changes, config_.caps, skill_path_rule);
    });
    note_long_descriptions(changes, report);
    return report;
  }

 private:
  struct found_skill {
    std::unique_ptr<const file_folder> dir;
    std::string_view owner;  // "user" or "example"
    skill_files files;
  };

  // The user's skill `name`, else the shipped example of that name; nullopt
  // when there is neither. Error: storage_error.
  result<std::optional<found_skill>> find_skill(const std::string& user_id, const std::string& name) const {
    for (std::string_view owner : {"user", "example"}) {
      auto dir = folder_of(owner, user_id);
      auto files = dir->scan();
      if (!files) return files.error();
      auto skills = group_by_skill(*files);
      auto it = skills.find(name);
      if (it != skills.end())
        return std::optional<found_skill>(found_skill{std::move(dir), owner, std::move(it->second)});
    }
    return std::optional<found_skill>();
  }

  // A SKILL.md just saved whose description is longer than the prompt takes:
  // the code that saved it hears so, while it can still shorten it.
  static void note_long_descriptions(const std::vector<bridge::file_change>& changes, apply_report& report) {
    for (const auto& change : changes) {
      if (change.root != "skills" || change.op != "write" || !change.path.ends_with("/SKILL.md")) continue;
      if (std::find(report.written.begin(), report.written.end(), change.path) == report.written.end()) continue;
      auto front = parse_front_matter(change.content);
      if (!front || front->description.size() <= execution::max_prompt_description_bytes) continue;
      report.notes.push_back(
          {change.path, fmt::format("the description is {} bytes; the system prompt shows only its first {}: "
                                    "put the essentials first, or shorten it",
                                    front->description.size(), execution::max_prompt_description_bytes)});
    }
  }

  // The user's folder, or the examples on disk (the same checkout on every replica).
  std::unique_ptr<const file_folder> folder_of(std::string_view owner, const std::string& user_id) const {
    if (owner == "user") return users_->open(user_id);
    return std::make_unique<confined_dir>(examples_);
  }

  // {name, description, updated, owner, problem?} of one skill folder.
  json describe(const file_folder& dir, std::string_view owner, const std::string& name,
                const skill_files& files) const {
    auto newest = fs::file_time_type::min();
    for (const auto& [path, file] : files) newest = std::max(newest, file.modified);
    json entry{{"name", name}, {"description", ""}, {"updated", iso_time(newest)}, {"owner", owner}};
    if (!is_skill_name(name)) {
      entry["problem"] = "the folder name is not a valid skill name (lowercase letters, digits and '-')";
      return entry;
    }
    if (!files.contains("SKILL.md")) {
      entry["problem"] = "no SKILL.md: add one with front matter 'name' and 'description'";
      return entry;
    }
    auto md = dir.read_file(name + "/SKILL.md", skill_md_max_bytes);
    if (!md) {
      entry["problem"] = "SKILL.md cannot be read: " + md.error().message;
      return entry;
    }
    auto front = parse_front_matter(*md);
    if (!front) {
      entry["problem"] = front.error().describe();
      return entry;
    }
    entry["description"] = front->description;
    if (front->name != name) {
      entry["problem"] = fmt::format(
          "SKILL.md names it '{}' but the folder is '{}'; code requires it by the folder name", front->name, name);
    }
    return entry;
  }

  // Whole skills, in name order, while they fit in the caps; a skill that
  // does not fit is left out entirely (half a skill is worse than none).
  void add_init_files(std::string_view owner, const std::string& prefix, const std::string& user_id,
                      std::vector<bridge::init_file>& out) const {
    auto dir = folder_of(owner, user_id);
    auto files = dir->scan();
    if (!files) {
      core::log_warn("cannot read the {} skills for user {}: {}", owner, user_id, files.error().describe());
      return;
    }
    std::size_t bytes = 0, count = 0;
    std::vector<std::string> left_out;
    for (const auto& [name, skill] : group_by_skill(*files)) {
      std::size_t skill_bytes = 0;
      for (const auto& [path, file] : skill) skill_bytes += file.size;
      if (!is_skill_name(name) || count + skill.size() > config_.caps.max_files ||
          bytes + skill_bytes > config_.caps.max_total_bytes) {
        left_out.push_back(name);
        continue;
      }
      for (const auto& [path, file] : skill) {
        auto content = dir->read_file(name + "/" + path, config_.caps.max_file_bytes);
        if (!content) {
          core::log_warn("skill file {}/{} left out of the sandbox: {}", name, path, content.error().describe());
          continue;
        }
        bytes += content->size();
        ++count;
        out.push_back({"skills", prefix + name + "/" + path, std::move(*content)});
      }
    }
    if (!left_out.empty()) {
      core::log_warn("{} skills left out of the sandbox for user {} (over {} files / {} bytes, or a bad name): {}",
                     owner, user_id, config_.caps.max_files, config_.caps.max_total_bytes, fmt::join(left_out, ", "));
    }
  }

  skill_config config_;
  std::shared_ptr<folder_set> users_;  // serializes the changes of each user: the caps are counted before writing
  confined_dir examples_;
};

}  // namespace

error no_such_skill(std::string_view name) {
  return make_error(skills::errc::skill_not_found, fmt::format("no skill named '{}'", name),
                    "GET /skills?userId=... lists the skills you can use");
}

std::unique_ptr<skill_library> create_skill_library(skill_config config, std::shared_ptr<folder_set> users) {
  return std::make_unique<skill_library_impl>(std::move(config), std::move(users));
}

std::unique_ptr<skill_library> create_skill_library(skill_config config) {
  auto users = disk_folders(config.dir / "users", "SKILLS_DIR");
  return create_skill_library(std::move(config), std::move(users));
}

}  // namespace harness::skills
