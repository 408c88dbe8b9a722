// What one task sends the LLM: the system prompt and the conversation. It is
// the single boundary of "everything the LLM sees passes the PII censor":
// text gets in only as censored_text, which only this class makes, through
// the censor with the task's vault. Whatever produced the text (the caller's
// task, a block's output, an error, a skill's description) cannot reach a
// request raw.
//
// What it cannot do: find a value a tool has transformed (an address a tool
// rewrote as "jane AT example.com" is no longer an address). docs/SECURITY.md
// says so.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/agent/prompt.hpp"
#include "harness/llm/types.hpp"
#include "harness/pii/pii_censor.hpp"
#include "harness/pii/pii_vault.hpp"

namespace harness::agent {

// Text that has passed the censor. Only llm_transcript makes one.
class censored_text {
 public:
  const std::string& str() const { return text_; }
  std::size_t size() const { return text_.size(); }
  // Cut to `max_chars` with the harness's own note (agent/observation.hpp's
  // fit_to_limit). Censoring comes before cutting, so a cut cannot leave
  // part of a value that the censor no longer recognises.
  censored_text fitted(std::size_t max_chars, const std::string& full_text_path) const;

 private:
  friend class llm_transcript;
  explicit censored_text(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

class llm_transcript {
 public:
  // `censor` null: no detector is configured and text passes as it is.
  // `earlier`: the conversation's stored messages, which passed this
  // boundary when their task added them.
  llm_transcript(std::shared_ptr<const pii::pii_censor> censor, std::shared_ptr<pii::pii_vault> vault,
                 std::vector<llm::message> earlier = {});

  // Text from outside the token domain (the caller's task, a skill's
  // description): every token-shaped string in it is escaped.
  censored_text from_outside(std::string_view text) const;
  // Text made inside the token domain (a block's output): tokens the vault
  // issued stay as they are.
  censored_text from_sandbox(std::string_view text) const;

  // The same rule for what the task's events carry (the write-back report of
  // a block, with the paths the code chose): the caller streams tokens, as
  // the LLM reads them. A document too deep to censor becomes null.
  nlohmann::json json_from_sandbox(const nlohmann::json& value) const;

  // Builds the system prompt, censoring what users wrote (skill descriptions and paths).
  void set_system(prompt_inputs inputs);
  void add_user(censored_text text);
  void add_tool_result(const llm::tool_call& call, censored_text text, bool is_error);
  // The model's own turn goes back as it came: it holds nothing the model was not sent.
  void add_assistant(const llm::llm_turn& turn);

  const std::string& system_prompt() const { return system_; }
  // The conversation without the system prompt, as stored with the conversation.
  const std::vector<llm::message>& messages() const { return messages_; }
  // The system prompt, then the conversation.
  std::vector<llm::message> request_messages() const;

 private:
  std::shared_ptr<const pii::pii_censor> censor_;
  std::shared_ptr<pii::pii_vault> vault_;
  std::string system_;
  std::vector<llm::message> messages_;
};

}  // namespace harness::agent
