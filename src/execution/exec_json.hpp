// The JSON shape of one block's outcome, shared by /execute and the agent's
// observations.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/bridge/runtime_session.hpp"

namespace harness::execution {

// {"result", "logs": [{level, text}], "toolCalls": [{name, ms, ok}],
//  "files": [{root, path, op, size?}], "saved"?, "error"?}: "result" is null
// when the block failed, "error" is {name, message, stack?} then; "size" is
// only on writes; "saved" is the write-back report, when files were written
// back to the user's skills or the task's workspace.
nlohmann::json exec_result_json(const bridge::exec_result& outcome);

}  // namespace harness::execution
