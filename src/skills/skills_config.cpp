#include "harness/skills/skills_config.hpp"
#include "harness/skills/errors.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>

namespace harness::skills {
namespace {

using std::chrono::seconds;

error bad_duration(std::string_view text) {
  return make_error(skills::errc::invalid_duration, fmt::format("'{}' is not a duration", text),
                    "write a number with a unit, e.g. 24h, 30m, 90s, 1d or 1h30m, or a plain number of seconds");
}

result<std::size_t> get_size(const core::settings& s, const std::string& name, std::int64_t max) {
  auto value = s.get_int(name, 1, max);
  if (!value) return value.error();
  return static_cast<std::size_t>(*value);
}

result<file_caps> load_caps(const core::settings& s, const std::string& prefix) {
  auto file = get_size(s, prefix + "_MAX_FILE_BYTES", std::int64_t{1} << 30);
  if (!file) return file.error();
  auto total = get_size(s, prefix + "_MAX_TOTAL_BYTES", std::int64_t{1} << 40);
  if (!total) return total.error();
  auto count = get_size(s, prefix + "_MAX_FILES", 1000000);
  if (!count) return count.error();
  if (*file > *total) {
    return make_error(
        core::errc::invalid_setting,
        fmt::format("{}_MAX_FILE_BYTES ({}) is larger than {}_MAX_TOTAL_BYTES ({})", prefix, *file, prefix, *total),
        "one file cannot be larger than the whole folder");
  }
  return file_caps{.max_file_bytes = *file, .max_total_bytes = *total, .max_files = *count};
}

}  // namespace

std::chrono::seconds workspace_config::sweep_interval() const {
  return std::clamp<seconds>(retention / 24, seconds(60), seconds(3600));
}

result<std::chrono::seconds> parse_duration(std::string_view text) {
  if (text.empty()) return bad_duration(text);
  // A plain number is seconds; otherwise every number carries a unit ("1h30m", not "1h30").
  bool plain = text.find_first_not_of("0123456789") == std::string_view::npos;
  std::int64_t total = 0;
  const char* at = text.data();
  const char* end = text.data() + text.size();
  while (at < end) {
    std::int64_t number = 0;
    auto parsed = std::from_chars(at, end, number);
    if (parsed.ec != std::errc() || parsed.ptr == at) return bad_duration(text);
    at = parsed.ptr;
    std::int64_t unit = 1;
    if (!plain) {
      if (at == end) return bad_duration(text);
      switch (*at++) {
        case 'd':
          unit = 86400;
          break;
        case 'h':
          unit = 3600;
          break;
        case 'm':
          unit = 60;
          break;
        case 's':
          unit = 1;
          break;
        default:
          return bad_duration(text);
      }
    }
    if (number > (std::numeric_limits<std::int64_t>::max() - total) / unit) return bad_duration(text);
    total += number * unit;
  }
  return seconds(total);
}

std::vector<core::setting_spec> skills_setting_specs() {
  return {
      {"SKILLS_DIR", "skills", "folder of the skills: examples/ (shipped, read-only) and users/<userId>/"},
      {"WORKSPACE_DIR", "workspace", "folder of the task workspaces, one <taskId>/ folder per task"},
      {"WORKSPACE_RETENTION", "24h", "a workspace nobody wrote to for this long is removed (e.g. 24h, 30m, 3600)"},
      {"SKILL_MAX_FILE_BYTES", "1048576", "largest skill file a sandbox may save"},
      {"SKILL_MAX_TOTAL_BYTES", "10485760", "bytes of skills one user may keep, over all their skills"},
      {"SKILL_MAX_FILES", "200", "files one user may keep over all their skills"},
      {"WORKSPACE_MAX_FILE_BYTES", "1048576", "largest workspace file a sandbox may save"},
      {"WORKSPACE_MAX_TOTAL_BYTES", "52428800", "bytes one task's workspace may hold"},
      {"WORKSPACE_MAX_FILES", "500", "files one task's workspace may hold"},
  };
}

result<skills_config> load_skills_config(const core::settings& s) {
  skills_config out;
  for (const char* name : {"SKILLS_DIR", "WORKSPACE_DIR"}) {
    if (s.get(name).empty()) {
      return make_error(core::errc::invalid_setting, fmt::format("{} is empty", name), "give a folder path");
    }
  }
  out.skills.dir = s.get("SKILLS_DIR");
  out.workspace.dir = s.get("WORKSPACE_DIR");
  auto retention = parse_duration(s.get("WORKSPACE_RETENTION"));
  if (!retention) {
    return make_error(core::errc::invalid_setting, "WORKSPACE_RETENTION: " + retention.error().message,
                      retention.error().hint);
  }
  if (*retention < seconds(60) || *retention > seconds(366 * 86400)) {
    return make_error(core::errc::invalid_setting,
                      fmt::format("WORKSPACE_RETENTION is {}s; it must be between 1m and 366d", retention->count()));
  }
  out.workspace.retention = *retention;
  auto skill_caps = load_caps(s, "SKILL");
  if (!skill_caps) return skill_caps.error();
  out.skills.caps = *skill_caps;
  auto workspace_caps = load_caps(s, "WORKSPACE");
  if (!workspace_caps) return workspace_caps.error();
  out.workspace.caps = *workspace_caps;
  return out;
}

}  // namespace harness::skills
