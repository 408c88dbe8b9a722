// Script steps for the fake LLM (fake_llm_server.hpp) that end-to-end tests
// share: a turn that runs code through the execute_code tool, and a final
// answer, each with fixed token counts.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace harness::testing {

// An assistant turn calling execute_code with `code` (100 tokens in, 20 out).
inline nlohmann::json code_step(const std::string& code) {
  return {{"reply",
           {{"toolCalls", nlohmann::json::array({{{"name", "execute_code"}, {"arguments", {{"code", code}}}}})},
            {"usage", {{"inputTokens", 100}, {"outputTokens", 20}}}}}};
}

// A final answer `text` (120 tokens in, 10 out).
inline nlohmann::json answer_step(const std::string& text) {
  return {{"reply", {{"text", text}, {"usage", {{"inputTokens", 120}, {"outputTokens", 10}}}}}};
}

}  // namespace harness::testing
