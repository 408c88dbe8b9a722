#include "harness/bridge/outcome_text.hpp"

#include <fmt/format.h>

namespace harness::bridge {
namespace {

using json = nlohmann::json;

std::string dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

void append_error(std::string& out, const exec_result& result) {
  const json& error = result.error;
  std::string name = error.value("name", std::string("Error"));
  std::string message = error.value("message", std::string());
  out += fmt::format("error: {}: {}\n", name, message);
  if (error.contains("stack") && error["stack"].is_string()) out += error["stack"].get<std::string>() + "\n";
  if (result.failure == failure_kind::timeout) {
    out += "The block was stopped at its time limit. Make it do less per block, or work in smaller steps.\n";
  }
}

void append_files(std::string& out, const json& report) {
  if (!report.is_object()) return;
  auto list_of = [&](const char* key) {
    std::string list;
    for (const auto& p : report.value(key, json::array())) {
      if (p.is_string()) list += (list.empty() ? "" : ", ") + p.get<std::string>();
    }
    return list;
  };
  if (auto written = list_of("written"); !written.empty()) out += "saved files: " + written + "\n";
  if (auto deleted = list_of("deleted"); !deleted.empty()) out += "deleted files: " + deleted + "\n";
  for (const auto& r : report.value("refused", json::array())) {
    // "message" says what to do; "reason" is the short code, for reports without one.
    std::string why = r.value("message", r.value("reason", std::string("refused")));
    out += fmt::format("file NOT saved: {} ({})\n", r.value("path", std::string("?")), why);
  }
  for (const auto& n : report.value("notes", json::array())) {
    out += fmt::format("note on {}: {}\n", n.value("path", std::string("?")), n.value("message", std::string()));
  }
}

}  // namespace

std::string outcome_text(const exec_result& outcome, std::string_view note) {
  std::string text;
  if (!note.empty()) text += "note: " + std::string(note) + "\n";
  for (const auto& log : outcome.logs) {
    text += log.level == "log" || log.level == "info" ? log.text : "[" + log.level + "] " + log.text;
    text += '\n';
  }
  if (outcome.ok) {
    if (!outcome.value.is_null()) text += "returned: " + dump(outcome.value) + "\n";
    if (outcome.value.is_null() && outcome.logs.empty()) text += "(the block returned nothing and printed nothing)\n";
  } else {
    append_error(text, outcome);
  }
  std::size_t failed = 0;
  for (const auto& c : outcome.tool_calls) failed += c.ok ? 0 : 1;
  if (failed) text += fmt::format("tool calls: {} ({} failed)\n", outcome.tool_calls.size(), failed);
  append_files(text, outcome.files_report);
  return text;
}

}  // namespace harness::bridge
