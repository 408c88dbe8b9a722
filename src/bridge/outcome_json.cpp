#include "harness/bridge/outcome_json.hpp"

namespace harness::bridge {

nlohmann::json outcome_json(const exec_result& outcome) {
  using json = nlohmann::json;
  json logs = json::array();
  for (const auto& l : outcome.logs) logs.push_back({{"level", l.level}, {"text", l.text}});
  json calls = json::array();
  for (const auto& c : outcome.tool_calls) calls.push_back({{"name", c.name}, {"ms", c.ms}, {"ok", c.ok}});
  json files = json::array();
  for (const auto& f : outcome.files) {
    json entry{{"root", f.root}, {"path", f.path}, {"op", f.op}};
    if (f.op == "write") entry["size"] = f.size;
    files.push_back(std::move(entry));
  }
  json body{{"result", outcome.ok ? outcome.value : json(nullptr)},
            {"logs", std::move(logs)},
            {"toolCalls", std::move(calls)},
            {"files", std::move(files)}};
  if (!outcome.files_report.is_null()) body["saved"] = outcome.files_report;
  if (!outcome.ok) body["error"] = outcome.error;
  return body;
}

}  // namespace harness::bridge
