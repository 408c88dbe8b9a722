#include "harness/execution/data_path.hpp"

#include "harness/core/logging.hpp"

namespace harness::execution {
namespace {

class registry_gateway final : public bridge::tool_gateway {
 public:
  explicit registry_gateway(std::shared_ptr<mcp::tool_registry> registry) : registry_(std::move(registry)) {}

  boost::asio::awaitable<result<nlohmann::json>> list_tools(std::string query) override {
    co_return registry_->list(query);
  }
  boost::asio::awaitable<result<nlohmann::json>> tool_details(std::string name) override {
    co_return registry_->details(name);
  }
  boost::asio::awaitable<result<nlohmann::json>> call_tool(std::string name, nlohmann::json args) override {
    co_return co_await registry_->call(std::move(name), std::move(args));
  }

 private:
  std::shared_ptr<mcp::tool_registry> registry_;
};

}  // namespace

std::shared_ptr<bridge::tool_gateway> registry_tools(std::shared_ptr<mcp::tool_registry> registry) {
  return std::make_shared<registry_gateway>(std::move(registry));
}

nlohmann::json pii_filter::into_sandbox(nlohmann::json value) {
  auto censored = censor_->tokenize_json(value, *vault_, pii::token_policy::escape_all);
  if (censored) return std::move(*censored);
  // Nesting past the censor's depth limit: refuse to pass it on uncensored.
  core::log_warn("tool result not censored ({}); withheld from the sandbox", censored.error().message);
  return {{"error", "the tool result was too deeply nested to censor and was withheld"}};
}

nlohmann::json pii_filter::out_of_sandbox(nlohmann::json value) {
  auto restored = pii::detokenize_json(value, *vault_);
  if (restored) return std::move(*restored);
  core::log_warn("tool arguments not restored ({}); passed on as written", restored.error().message);
  return value;
}

}  // namespace harness::execution
