#include "harness/llm/provider.hpp"
#include "record_replay.hpp"

namespace harness::llm {

result<std::shared_ptr<llm_provider>> create_llm_provider(core::clock& clock, const llm_config& config,
                                                          std::shared_ptr<http_transport> transport) {
  std::shared_ptr<llm_provider> provider;
  if (config.provider == "replay") {
    auto replay = create_replay_provider(config.replay_file);
    if (!replay) return replay.error();
    provider = std::move(*replay);
  } else if (!transport) {
    return make_error(core::errc::invalid_argument, "the " + config.provider + " provider needs an HTTP transport");
  } else if (config.provider == "anthropic") {
    provider = create_anthropic_provider(clock, config, std::move(transport));
  } else if (config.provider == "openai") {
    provider = create_openai_provider(clock, config, std::move(transport));
  } else {
    return make_error(core::errc::invalid_setting, "unknown LLM_PROVIDER '" + config.provider + "'",
                      "use openai, anthropic or replay");
  }
  if (config.record_file.empty()) return provider;
  return create_recording_provider(clock, std::move(provider), config.record_file, config.model, config.api_key);
}

}  // namespace harness::llm
