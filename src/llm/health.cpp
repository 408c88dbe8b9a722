#include "harness/llm/health.hpp"

namespace harness::llm {
namespace {

class llm_health final : public harness::core::health_source {
 public:
  llm_health(const llm_config& config, std::string not_configured) {
    auto& d = health_.detail;
    health_.required = false;
    if (!not_configured.empty()) {
      health_.configured = false;
      d["reason"] = std::move(not_configured);
      d["settings"] = {"LLM_API_KEY", "LLM_BASE_URL", "LLM_PROVIDER"};
      return;
    }
    d["provider"] = config.provider;
    if (config.provider == "replay") {
      d["replayFile"] = config.replay_file;
    } else {
      d["model"] = config.model;
      d["baseUrl"] = config.base_url;  // validated at load: holds no credentials
      d["keySet"] = !config.api_key.empty();
      d["toolMode"] = config.tools == tool_mode::native ? "native" : config.tools == tool_mode::text ? "text" : "auto";
      d["maxConcurrent"] = config.max_concurrent;
    }
    if (!config.record_file.empty()) d["recordFile"] = config.record_file;
  }

  std::string name() const override { return "llm"; }
  harness::core::component_health check() const override { return health_; }

 private:
  harness::core::component_health health_;
};

}  // namespace

std::shared_ptr<const harness::core::health_source> create_llm_health_source(const llm_config& config,
                                                                             std::string not_configured) {
  return std::make_shared<llm_health>(config, std::move(not_configured));
}

}  // namespace harness::llm
