#include "observation.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "harness/bridge/outcome_text.hpp"
#include "harness/core/json_parse.hpp"
#include "harness/core/utf8.hpp"

namespace harness::agent {

std::string cut_utf8(const std::string& text, std::size_t max_chars) {
  if (text.size() <= max_chars) return text;
  std::size_t end = max_chars;
  // Step back over continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string observation_text(const observation_inputs& in) {
  return bridge::outcome_text(in.outcome, in.sandbox_note);
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
  if (!call.error_code.empty()) out["error"] = call.error_code;
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
