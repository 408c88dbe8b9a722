// GET /health entry for the LLM: what is configured, never a call to the API.
#pragma once

#include <memory>

#include "harness/core/health.hpp"
#include "harness/llm/config.hpp"

namespace harness::llm {

// Reports under "llm": provider, model, base URL, whether a key is set (never
// the key), tool mode, recording/replay files. Always up and not required: the
// server serves /execute without an LLM.
std::shared_ptr<const harness::core::health_source> create_llm_health_source(const llm_config& config);

}  // namespace harness::llm
