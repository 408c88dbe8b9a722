// What the client answers an elicitation/create that nobody here can answer
// (MCP 2025-06-18 and later): the requested schema's defaults when they cover
// every required field ({"action": "accept", "content": {...}}), else
// {"action": "decline"}. Pure.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"

namespace harness::mcp {

// Error (invalid params) when `params` has no requestedSchema object.
result<nlohmann::json> elicitation_without_anyone(const nlohmann::json& params);

}  // namespace harness::mcp
