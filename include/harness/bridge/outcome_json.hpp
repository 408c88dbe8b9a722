// The JSON shape of one block's outcome, shared by POST /execute's answer and
// the MCP face's structured result.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/bridge/runtime_session.hpp"

namespace harness::bridge {

// {"result", "logs": [{level, text}], "toolCalls": [{name, ms, ok}],
//  "files": [{root, path, op, size?}], "saved"?, "error"?}: "result" is null
// when the block failed, "error" is {name, message, stack?} then; "size" is
// only on writes; "saved" is the write-back report, when files were written
// back to the user's skills or the task's workspace.
nlohmann::json outcome_json(const exec_result& outcome);

}  // namespace harness::bridge
