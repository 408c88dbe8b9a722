// Turns the outcome of one code block into the observation the LLM reads:
// the returned value, the printed lines, the error (with the agent's own stack
// frames), what happened to written files, and a note when the sandbox had to
// be replaced. Long observations are cut at a limit with a note saying where
// the full text is.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/bridge/runtime_session.hpp"
#include "llm_transcript.hpp"

namespace harness::agent {

struct observation {
  std::string text;       // what goes to the LLM (before censoring: the task loop censors, then cuts)
  bool is_error = false;  // the block failed
  bool truncated = false;
  std::string full_text;  // the whole observation when truncated, else empty
};

struct observation_inputs {
  const bridge::exec_result& outcome;
  std::string sandbox_note;  // e.g. "this block ran in a fresh sandbox ...", or empty
  std::size_t max_chars = 8000;
  std::string full_text_path;  // where the full text will be saved when cut
};

// The whole text of the outcome (bridge::outcome_text, with the sandbox
// note), before censoring and cutting.
std::string observation_text(const observation_inputs& in);

// `text` itself when it fits in `max_chars`; else its start and a note that
// it was cut and that the whole text is at `full_text_path`.
std::string fit_to_limit(const std::string& text, std::size_t max_chars, const std::string& full_text_path);

// Arguments longer than this reach the tool_call event as a cut preview:
// events are kept in the store and sent to every watcher of the task.
inline constexpr std::size_t max_event_args_bytes = 4096;

// The data of the "tool_call" event of one call made by a block:
// {turn, name, ms, ok, resultBytes} and the arguments as the code sent them,
// through `transcript`'s censor like every text of the task's events (so a
// value the code held raw is a token there too): "args" when the record has
// them whole; else "argsPreview" (cut at max_event_args_bytes, after
// censoring) when it has some, and "argsBytes" (their full size).
nlohmann::json tool_call_event(const bridge::tool_call_record& call, int turn, const llm_transcript& transcript);

// observation_text, then fit_to_limit.
observation make_observation(const observation_inputs& in);

// Cuts `text` to at most `max_chars` bytes at a UTF-8 character boundary.
std::string cut_utf8(const std::string& text, std::size_t max_chars);

}  // namespace harness::agent
