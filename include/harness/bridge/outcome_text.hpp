// What a model reads of one block's outcome: the one text that the agent's
// observations and the MCP face's execute_code answers both show, so a model
// sees a block the same way through either door.
#pragma once

#include <string>
#include <string_view>

#include "harness/bridge/runtime_session.hpp"

namespace harness::bridge {

// In order: "note: <note>" when `note` is not empty (e.g. the block ran in a
// fresh sandbox); the console lines ("log" and "info" as they are, other
// levels as "[level] text"); then "returned: <compact JSON>" (or, when the
// block returned and printed nothing, a line saying so), or for a failure
// "error: <name>: <message>" with its stack and, after a timeout, what to do
// about it; "tool calls: <n> (<f> failed)" when some failed (the model wrote
// the calls, so their count alone tells it nothing); and what the host did
// with the files written back (outcome.files_report): saved, deleted,
// refused with the reason, notes. Neither censored nor cut: the caller does
// both, each in its own way. Invalid UTF-8 in the value becomes U+FFFD.
std::string outcome_text(const exec_result& outcome, std::string_view note = {});

}  // namespace harness::bridge
