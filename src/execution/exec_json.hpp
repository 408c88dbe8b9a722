// The JSON shape of one block's outcome, shared by /execute and the agent's
// observations.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/bridge/runtime_session.hpp"

namespace harness::execution {

// {"result", "logs": [{level, text}], "error"?, "toolCalls": [{name, ms, ok}],
//  "files": [{root, path, op, size}]}
nlohmann::json exec_result_json(const bridge::exec_result& outcome);

}  // namespace harness::execution
