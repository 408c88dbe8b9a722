#include "harness/skills/errors.hpp"

namespace harness::skills {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "skills"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_user_id:
        return "invalid_user_id";
      case errc::invalid_skill_name:
        return "invalid_skill_name";
      case errc::invalid_task_id:
        return "invalid_task_id";
      case errc::invalid_path:
        return "invalid_path";
      case errc::invalid_skill_md:
        return "invalid_skill_md";
      case errc::invalid_duration:
        return "invalid_duration";
      case errc::skill_not_found:
        return "skill_not_found";
      case errc::skill_read_only:
        return "skill_read_only";
      case errc::workspace_not_found:
        return "workspace_not_found";
      case errc::file_not_found:
        return "file_not_found";
      case errc::file_too_large:
        return "file_too_large";
      case errc::host_symlink:
        return "host_symlink";
      case errc::path_conflict:
        return "path_conflict";
      case errc::storage_error:
        return "storage_error";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_user_id:
      case errc::invalid_skill_name:
      case errc::invalid_task_id:
      case errc::invalid_path:
        return 400;
      case errc::invalid_skill_md:  // the skill is there, but its SKILL.md cannot be read as one
      case errc::file_too_large:    // too large to serve through this route; the sandbox can read it
        return 422;
      case errc::host_symlink:  // the server's folder has a symlink on the path: refused, never followed
        return 403;
      case errc::path_conflict:  // a file where a folder is needed, or the other way round
        return 409;
      case errc::storage_error:  // the disk failed (errno in the message): worth a retry later
        return 503;
      case errc::invalid_duration:
        return 500;
      case errc::skill_not_found:
      case errc::workspace_not_found:
      case errc::file_not_found:
        return 404;
      case errc::skill_read_only:
        return 403;
    }
    return 0;
  }
};

}  // namespace

const harness::error_category& errc_category() noexcept {
  static const category instance;
  return instance;
}

}  // namespace harness::skills
