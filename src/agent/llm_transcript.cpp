#include "llm_transcript.hpp"

#include "observation.hpp"

namespace harness::agent {

censored_text censored_text::fitted(std::size_t max_chars, const std::string& full_text_path) const {
  return censored_text(fit_to_limit(text_, max_chars, full_text_path));
}

llm_transcript::llm_transcript(std::shared_ptr<const pii::pii_censor> censor, std::shared_ptr<pii::pii_vault> vault,
                               std::vector<llm::message> earlier)
    : censor_(std::move(censor)), vault_(std::move(vault)), messages_(std::move(earlier)) {}

censored_text llm_transcript::from_outside(std::string_view text) const {
  if (!censor_) return censored_text(std::string(text));
  return censored_text(censor_->tokenize(text, *vault_, pii::token_policy::escape_all));
}

censored_text llm_transcript::from_sandbox(std::string_view text) const {
  if (!censor_) return censored_text(std::string(text));
  return censored_text(censor_->tokenize(text, *vault_, pii::token_policy::keep_issued));
}

nlohmann::json llm_transcript::json_from_sandbox(const nlohmann::json& value) const {
  if (!censor_) return value;
  auto censored = censor_->tokenize_json(value, *vault_, pii::token_policy::keep_issued);
  return censored ? std::move(*censored) : nlohmann::json();
}

void llm_transcript::set_system(prompt_inputs inputs) {
  for (auto& skill : inputs.skills) {
    skill.path = from_outside(skill.path).str();
    skill.description = from_outside(skill.description).str();
  }
  system_ = agent::system_prompt(inputs);
}

void llm_transcript::add_user(censored_text text) {
  llm::message m;
  m.role = llm::message_role::user;
  m.text = std::move(text.text_);
  messages_.push_back(std::move(m));
}

void llm_transcript::add_tool_result(const llm::tool_call& call, censored_text text, bool is_error) {
  llm::message m;
  m.role = llm::message_role::tool;
  m.tool_call_id = call.id;
  m.from_text = call.from_text;
  m.text = std::move(text.text_);
  m.is_error = is_error;
  messages_.push_back(std::move(m));
}

void llm_transcript::add_assistant(const llm::llm_turn& turn) {
  llm::message m;
  m.role = llm::message_role::assistant;
  m.text = turn.text;
  m.tool_calls = turn.tool_calls;
  messages_.push_back(std::move(m));
}

std::vector<llm::message> llm_transcript::request_messages() const {
  std::vector<llm::message> out;
  out.reserve(messages_.size() + 1);
  llm::message system;
  system.role = llm::message_role::system;
  system.text = system_;
  out.push_back(std::move(system));
  out.insert(out.end(), messages_.begin(), messages_.end());
  return out;
}

}  // namespace harness::agent
