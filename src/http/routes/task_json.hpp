// The wire JSON of the agent's task structs: the HTTP layer is the only
// place that writes them.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "harness/agent/agent_manager.hpp"

namespace harness::http {

// "2026-11-30T01:02:03.456Z", or null for 0.
nlohmann::json iso_time(std::int64_t epoch_ms);

// {"taskId","userId","conversationId","status","task","mode","result","error"?,"turns",
//  "usage":{"inputTokens","outputTokens"},"durationMs","createdAt","startedAt","finishedAt",
//  "transcript"? (only when the view holds one)}
nlohmann::json task_view_json(const agent::task_view& view);

// {"taskId","status":"cancelled"|"cancelling"}
nlohmann::json cancel_json(const agent::cancel_outcome& outcome);

}  // namespace harness::http
