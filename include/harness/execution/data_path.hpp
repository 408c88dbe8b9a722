// Adapters that put the real components on the sandbox's data path: the MCP
// tool registry behind the helpers, and the PII censor (with one vault per
// session) on everything that crosses the sandbox boundary.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/bridge/tool_gateway.hpp"
#include "harness/core/metrics.hpp"
#include "harness/execution/pii_filter_factory.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "harness/pii/pii_censor.hpp"
#include "harness/pii/pii_vault.hpp"
#include "harness/policy/approver.hpp"
#include "harness/policy/call_guard.hpp"

namespace harness::execution {

// list_mcp_tools / get_mcp_tool_details / callMCPTool served by the registry.
std::shared_ptr<bridge::tool_gateway> registry_tools(std::shared_ptr<mcp::tool_registry> registry);

// Tool results are tokenized on their way into the sandbox; arguments coming
// out are restored to the real values before they reach a tool, those of the
// PII kinds the tool policy lets that tool have. `vault` is the task's (or
// session's) own; `censor` is shared and read-only. With a call guard, each
// call must pass the tool policy first (admit_call); a call the policy says
// to ask about waits for the approver (none: it is refused).
class pii_filter final : public bridge::data_filter {
 public:
  // With `detections`, each value tokenized for the first time in this vault
  // counts once in harness_pii_detections_total{kind} (repeats of a value keep
  // its token and are not counted again).
  pii_filter(std::shared_ptr<const pii::pii_censor> censor, std::shared_ptr<pii::pii_vault> vault,
             core::family<core::counter>* detections = nullptr, std::unique_ptr<policy::call_guard> guard = nullptr);

  nlohmann::json into_sandbox(nlohmann::json value) override;
  nlohmann::json out_of_sandbox(nlohmann::json value, std::string_view tool) override;
  boost::asio::awaitable<status> admit_call(bridge::call_admission call) override;
  void block_ended() override {
    if (approver_) approver_->cancel_waiting("the block ended before anyone decided");
  }
  // Forwards the elicitation to the approver (the MCP face's client), tokenized.
  boost::asio::awaitable<std::optional<nlohmann::json>> elicit(nlohmann::json params, std::string tool,
                                                               std::shared_ptr<bridge::deadline_pause> block) override;
  pii::pii_vault& vault() { return *vault_; }
  // Who decides the calls the policy asks about; set before the first block.
  void set_approver(std::shared_ptr<policy::approver> approver) { approver_ = std::move(approver); }

 private:
  std::shared_ptr<const pii::pii_censor> censor_;
  std::shared_ptr<pii::pii_vault> vault_;
  core::family<core::counter>* detections_;
  std::unique_ptr<policy::call_guard> guard_;
  std::shared_ptr<policy::approver> approver_;
  struct kind_count {
    std::string name;   // "email"
    std::string token;  // "EMAIL"
    std::size_t issued = 0;
  };
  std::vector<kind_count> kinds_;  // tokens of each kind seen in the vault so far
};

// The counter family pii_filter counts into.
core::family<core::counter>& pii_detection_counter(core::metrics_registry& registry);

}  // namespace harness::execution
