#include "change_set.hpp"

#include <fmt/format.h>

#include "harness/core/logging.hpp"

namespace harness::skills {
namespace {

// A path as it may appear in a report: control bytes and bytes outside ASCII
// are written as \xNN, so the JSON stays valid and shows what was sent.
std::string printable(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

file_refusal refusal(const bridge::file_change& change, std::string reason, std::string message) {
  return {printable(change.path), change.op, std::move(reason), std::move(message)};
}

// The rules an entry must pass on its own, before caps are counted.
std::optional<path_problem> check_entry(const bridge::file_change& change, const file_caps& caps,
                                        const path_rule& extra_rule) {
  if (change.op != "write" && change.op != "delete" && change.op != "symlink") {
    return path_problem{"unknown_op", fmt::format("unknown operation '{}'", printable(change.op))};
  }
  if (auto bad = check_relative_path(change.path)) return bad;
  if (extra_rule) {
    if (auto bad = extra_rule(change.path)) return bad;
  }
  if (change.op == "symlink") {
    return path_problem{"symlink_refused", "symlinks are not saved; write a regular file instead"};
  }
  if (change.op == "write" && change.too_large) {
    return path_problem{
        "too_large",
        fmt::format("the file ({} bytes) was over the sandbox's file size limit and was not sent", change.size)};
  }
  if (change.op == "write" && change.content.size() > caps.max_file_bytes) {
    return path_problem{"file_too_large", fmt::format("the file is {} bytes; the limit is {}", change.content.size(),
                                                      caps.max_file_bytes)};
  }
  return std::nullopt;
}

}  // namespace

apply_report apply_change_set(file_folder& dir, std::string_view root, const std::vector<bridge::file_change>& changes,
                              const file_caps& caps, const path_rule& extra_rule) {
  apply_report report;
  std::vector<const bridge::file_change*> deletes, writes;
  for (const auto& change : changes) {
    if (change.root != root) continue;
    if (auto bad = check_entry(change, caps, extra_rule)) {
      report.refused.push_back(refusal(change, bad->reason, bad->message));
    } else {
      (change.op == "delete" ? deletes : writes).push_back(&change);
    }
  }
  if (deletes.empty() && writes.empty()) return report;

  auto current = dir.scan();
  if (!current) {
    core::log_error("cannot read {} before writing to it: {}", dir.where(), current.error().describe());
    for (const auto* list : {&deletes, &writes}) {
      for (const auto* change : *list) {
        report.refused.push_back(
            refusal(*change, std::string(current.error().code.wire_name()), current.error().describe()));
      }
    }
    return report;
  }
  file_map& files = *current;
  std::size_t total = 0;
  for (const auto& [path, file] : files) total += file.size;

  // Deletes first: they free room for the writes of the same exec.
  for (const auto* change : deletes) {
    auto it = files.find(change->path);
    if (it == files.end()) continue;  // never saved on the host (e.g. refused earlier): nothing to do
    if (auto removed = dir.remove_file(change->path); !removed) {
      report.refused.push_back(
          refusal(*change, std::string(removed.error().code.wire_name()), removed.error().describe()));
      continue;
    }
    total -= it->second.size;
    files.erase(it);
    report.deleted.push_back(change->path);
  }
  for (const auto* change : writes) {
    auto it = files.find(change->path);
    std::size_t old_size = it == files.end() ? 0 : it->second.size;
    std::size_t count = files.size() + (it == files.end() ? 1 : 0);
    std::size_t new_total = total - old_size + change->content.size();
    if (count > caps.max_files) {
      report.refused.push_back(
          refusal(*change, "file_count_exceeded",
                  fmt::format("the folder may hold at most {} files; delete some first", caps.max_files)));
      continue;
    }
    if (new_total > caps.max_total_bytes) {
      report.refused.push_back(refusal(*change, "total_size_exceeded",
                                       fmt::format("the folder would hold {} bytes; the limit is {}; delete or "
                                                   "shrink files first",
                                                   new_total, caps.max_total_bytes)));
      continue;
    }
    if (auto written = dir.write_file(change->path, change->content); !written) {
      report.refused.push_back(
          refusal(*change, std::string(written.error().code.wire_name()), written.error().describe()));
      continue;
    }
    total = new_total;
    files[change->path] = {change->content.size(), {}};
    report.written.push_back(change->path);
  }
  if (!report.refused.empty()) {
    core::log_warn("{}: refused {} of {} changed files in {} (first: {} {}: {})", root, report.refused.size(),
                   report.refused.size() + report.written.size() + report.deleted.size(), dir.where(),
                   report.refused.front().op, report.refused.front().path, report.refused.front().reason);
  }
  return report;
}

apply_report refuse_all(std::string_view root, const std::vector<bridge::file_change>& changes,
                        const path_problem& why) {
  apply_report report;
  for (const auto& change : changes) {
    if (change.root == root) report.refused.push_back(refusal(change, why.reason, why.message));
  }
  return report;
}

}  // namespace harness::skills
