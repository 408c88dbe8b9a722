#include "app_settings.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/agent/agent_config.hpp"
#include "harness/auth/auth_config.hpp"
#include "harness/docker/engine_endpoint.hpp"
#include "harness/execution/execution_settings.hpp"
#include "harness/http/http_settings.hpp"
#include "harness/llm/config.hpp"
#include "harness/mcp/config.hpp"
#include "harness/mcp_server/face_settings.hpp"
#include "harness/net/net_settings.hpp"
#include "harness/pii/pii_config.hpp"
#include "harness/pii/vault_seal.hpp"
#include "harness/policy/policy_config.hpp"
#include "harness/sandbox/sandbox_config.hpp"
#include "harness/skills/skills_config.hpp"
#include "harness/store/store_config.hpp"
#include "harness/telemetry/telemetry_settings.hpp"

namespace harness::app {

std::vector<core::setting_spec> all_setting_specs() {
  std::vector<core::setting_spec> specs = {
      {"ENV_FILE", ".env", "settings file read at start-up (KEY=VALUE lines); a missing default file is fine"},
      {"LOG_FORMAT", "text", "text (readable lines) or json (one JSON object per line)"},
      {"LOG_LEVEL", "info", "trace, debug, info, warn, error or off"},
  };
  for (auto&& group : {http::http_setting_specs(), docker::docker_setting_specs(), sandbox::sandbox_setting_specs(),
                       execution::execution_setting_specs(), mcp::mcp_setting_specs(), pii::pii_setting_specs(),
                       llm::llm_setting_specs(), agent::agent_setting_specs(), store::store_setting_specs(),
                       skills::skills_setting_specs(), auth::auth_setting_specs(), mcp_server::face_setting_specs(),
                       policy::policy_setting_specs(), pii::vault_setting_specs(), net::net_setting_specs(),
                       telemetry::telemetry_setting_specs()}) {
    specs.insert(specs.end(), group.begin(), group.end());
  }
  return specs;
}

result<core::settings> load_settings(const std::vector<core::setting_spec>& specs,
                                     const std::vector<std::string>& args) {
  core::setting_sources sources;
  sources.env = core::environment_of(specs);
  sources.args = args;
  // The .env location itself can come from a flag or the environment.
  std::string env_file = ".env";
  bool explicit_file = false;
  if (auto it = sources.env.find("ENV_FILE"); it != sources.env.end()) {
    env_file = it->second;
    explicit_file = true;
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--env-file" && i + 1 < args.size()) {
      env_file = args[i + 1];
      explicit_file = true;
    } else if (args[i].rfind("--env-file=", 0) == 0) {
      env_file = args[i].substr(11);
      explicit_file = true;
    }
  }
  std::ifstream file(env_file);
  if (file) {
    std::stringstream text;
    text << file.rdbuf();
    sources.dotenv_text = text.str();
  } else if (explicit_file) {
    return make_error(core::errc::invalid_setting, "invalid ENV_FILE: '" + env_file + "' cannot be read",
                      "point ENV_FILE (or --env-file) at an existing file");
  }
  return core::settings::resolve(specs, sources);
}

result<core::log_config> load_log_config(const core::settings& settings) {
  core::log_config config;
  auto format = settings.get_choice("LOG_FORMAT", {"text", "json"});
  if (!format) return format.error();
  config.format = *format == "json" ? core::log_format::json : core::log_format::text;
  auto level = settings.get_choice("LOG_LEVEL", {"trace", "debug", "info", "warn", "error", "off"});
  if (!level) return level.error();
  config.level = spdlog::level::from_str(*level);
  return config;
}

}  // namespace harness::app
