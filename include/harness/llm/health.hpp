// GET /health entry for the LLM: what is configured, never a call to the API.
#pragma once

#include <memory>

#include "harness/core/health.hpp"
#include "harness/llm/config.hpp"

namespace harness::llm {

// Reports under "llm": provider, model, base URL, whether a key is set (never
// the key), tool mode, recording/replay files. Never required: the server
// serves /execute and stored tasks without an LLM. When `not_configured` is
// given (the reason no LLM can be used, naming the settings), the status is
// "not_configured" with that reason and nothing that looks like a live
// provider; otherwise "up". The API is never called.
std::shared_ptr<const harness::core::health_source> create_llm_health_source(const llm_config& config,
                                                                             std::string not_configured = {});

}  // namespace harness::llm
