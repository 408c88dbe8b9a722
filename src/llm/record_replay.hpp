// Record and replay of LLM exchanges, for deterministic demos and regression
// tests of agent behaviour. One JSON object per line:
//   {"v":1,"ts":"...","provider":"openai","model":"...","request":{...},
//    "turn":{...}}  or  ... "error":{"code","message","hint"}}
// request/turn use the provider-neutral JSON of types.hpp, so a session
// recorded against one provider replays under any configuration.
#pragma once

#include <memory>
#include <string>

#include "harness/core/error.hpp"
#include "harness/llm/provider.hpp"

namespace harness::llm {

// Forwards to inner and appends each exchange (success or error) to path.
// The API key is scrubbed from everything written. Fails when the file
// cannot be opened for appending.
result<std::shared_ptr<llm_provider>> create_recording_provider(core::clock& clock, std::shared_ptr<llm_provider> inner,
                                                                const std::string& path, const std::string& model,
                                                                const std::string& api_key);

// Answers call N with the N-th recorded reply (turn or error), whatever the
// request; past the end, "replay_exhausted". Loads the whole file at creation;
// fails with invalid_setting naming the file and line when it is unreadable.
result<std::shared_ptr<llm_provider>> create_replay_provider(const std::string& path);

}  // namespace harness::llm
