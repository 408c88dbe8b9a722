#include "observation.hpp"
#include "harness/core/json_parse.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "harness/core/utf8.hpp"

namespace harness::agent {
namespace {

using json = nlohmann::json;

std::string dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

void append_error(std::string& out, const bridge::exec_result& result) {
  const json& error = result.error;
  std::string name = error.value("name", std::string("Error"));
  std::string message = error.value("message", std::string());
  out += fmt::format("error: {}: {}\n", name, message);
  if (error.contains("stack") && error["stack"].is_string()) out += error["stack"].get<std::string>() + "\n";
  if (result.failure == bridge::failure_kind::timeout) {
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

std::string cut_utf8(const std::string& text, std::size_t max_chars) {
  if (text.size() <= max_chars) return text;
  std::size_t end = max_chars;
  // Step back over continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string observation_text(const observation_inputs& in) {
  const auto& r = in.outcome;
  std::string text;
  if (!in.sandbox_note.empty()) text += "note: " + in.sandbox_note + "\n";
  for (const auto& log : r.logs) {
    text += log.level == "log" || log.level == "info" ? log.text : "[" + log.level + "] " + log.text;
    text += '\n';
  }
  if (r.ok) {
    if (!r.value.is_null()) text += "returned: " + dump(r.value) + "\n";
    if (r.value.is_null() && r.logs.empty()) text += "(the block returned nothing and printed nothing)\n";
  } else {
    append_error(text, r);
  }
  // Only failures: the model wrote the calls, so their count alone tells it
  // nothing; a failure the code caught and went past is worth a line.
  std::size_t failed = 0;
  for (const auto& c : r.tool_calls) failed += c.ok ? 0 : 1;
  if (failed) text += fmt::format("tool calls: {} ({} failed)\n", r.tool_calls.size(), failed);
  append_files(text, in.files_report);
  return text;
}

std::string fit_to_limit(const std::string& text, std::size_t max_chars, const std::string& full_text_path) {
  if (text.size() <= max_chars) return text;
  std::string tail = fmt::format(
      "\n[cut: the observation was {} characters, the limit is {}. Full text: {}. "
      "Print less: summarise in code.]",
      text.size(), max_chars, full_text_path);
  std::size_t keep = max_chars > tail.size() ? max_chars - tail.size() : 0;
  return cut_utf8(text, keep) + tail;
}

observation make_observation(const observation_inputs& in) {
  observation out;
  out.is_error = !in.outcome.ok;
  std::string text = observation_text(in);
  out.truncated = text.size() > in.max_chars;
  out.text = fit_to_limit(text, in.max_chars, in.full_text_path);
  if (out.truncated) out.full_text = std::move(text);
  return out;
}

nlohmann::json tool_call_event(const bridge::tool_call_record& call, int turn, const llm_transcript& transcript) {
  using json = nlohmann::json;
  json out{{"turn", turn}, {"name", call.name}, {"ms", call.ms}, {"ok", call.ok}, {"resultBytes", call.reply_bytes}};
  if (call.args_bytes == 0) return out;  // a helper: no arguments
  if (call.args_json.size() == call.args_bytes) {
    // Whole: our own dump, so it parses; censored as a document.
    auto args = core::parse_json(call.args_json);
    if (!args.is_discarded()) {
      out["args"] = transcript.json_from_sandbox(args);
      return out;
    }
  }
  out["argsBytes"] = call.args_bytes;
  if (call.args_json.empty()) return out;  // past the block's budget: the size only
  // Censored, then cut. The record itself was cut, maybe inside a value the
  // censor could not recognise in part; such a part is the text's end (the
  // censor leaves it as it is) and shorter than the record's slack, so the
  // cut stays that far from the end as well as within max_event_args_bytes.
  const std::string text = transcript.from_sandbox(call.args_json).str();
  constexpr std::size_t slack = bridge::max_recorded_args_bytes - max_event_args_bytes;
  const std::size_t limit = std::min(max_event_args_bytes, text.size() > slack ? text.size() - slack : 0);
  const auto cut = core::utf8_boundary(text, limit);
  out["argsPreview"] = text.substr(0, cut) + "…";
  return out;
}

}  // namespace harness::agent
