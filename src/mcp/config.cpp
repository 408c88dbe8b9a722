#include "harness/mcp/config.hpp"
#include "harness/mcp/errors.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace harness::mcp {
namespace {

using nlohmann::json;

bool valid_server_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name.find("__") != std::string::npos) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  }
  return true;
}

// Index of the '}' closing the "${" at open, honouring nested ${...}; npos if none.
std::size_t closing_brace(const std::string& text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text.compare(i, 2, "${") == 0) {
      ++depth;
      ++i;
    } else if (text[i] == '}' && --depth == 0) {
      return i;
    }
  }
  return std::string::npos;
}

result<std::string> expand_string(const json& value, const std::string& where, const env_lookup& env) {
  if (!value.is_string()) return make_error(mcp::errc::invalid_config, where + ": expected a string");
  auto expanded = expand_variables(value.get<std::string>(), env);
  if (!expanded) {
    return make_error(mcp::errc::invalid_config, where + ": " + expanded.error().message, expanded.error().hint);
  }
  return expanded;
}

result<std::map<std::string, std::string>> expand_map(const json& value, const std::string& where,
                                                      const env_lookup& env) {
  std::map<std::string, std::string> out;
  if (value.is_null()) return out;
  if (!value.is_object()) return make_error(mcp::errc::invalid_config, where + ": expected an object of strings");
  for (const auto& [key, item] : value.items()) {
    auto expanded = expand_string(item, where + "." + key, env);
    if (!expanded) return expanded.error();
    out[key] = std::move(*expanded);
  }
  return out;
}

result<server_config> parse_server(const std::string& name, const json& entry, const env_lookup& env) {
  const std::string where = "mcpServers." + name;
  if (!valid_server_name(name)) {
    return make_error(mcp::errc::invalid_config, where + ": invalid server name",
                      "use 1-64 characters of letters, digits, '-' and '_', without \"__\"");
  }
  if (!entry.is_object()) return make_error(mcp::errc::invalid_config, where + ": expected an object");
  server_config server;
  server.name = name;
  const bool has_command = entry.contains("command");
  const bool has_url = entry.contains("url");
  if (has_command == has_url) {
    return make_error(mcp::errc::invalid_config,
                      where + ": needs exactly one of \"command\" (stdio) or \"url\" (HTTP)");
  }
  if (entry.contains("type")) {
    const auto& type = entry["type"];
    const bool ok = type.is_string() &&
                    (type == "stdio" || type == "http" || type == "streamable-http" || type == "streamableHttp");
    if (!ok) return make_error(mcp::errc::invalid_config, where + ".type: expected \"stdio\" or \"http\"");
    if ((type == "stdio") != has_command) {
      return make_error(mcp::errc::invalid_config, where + ".type: does not match command/url");
    }
  }
  if (has_command) {
    auto command = expand_string(entry["command"], where + ".command", env);
    if (!command) return command.error();
    if (command->empty()) return make_error(mcp::errc::invalid_config, where + ".command: is empty");
    server.command = std::move(*command);
    if (entry.contains("args")) {
      if (!entry["args"].is_array()) return make_error(mcp::errc::invalid_config, where + ".args: expected an array");
      for (std::size_t i = 0; i < entry["args"].size(); ++i) {
        auto arg = expand_string(entry["args"][i], where + ".args[" + std::to_string(i) + "]", env);
        if (!arg) return arg.error();
        server.args.push_back(std::move(*arg));
      }
    }
    auto vars = expand_map(entry.value("env", json()), where + ".env", env);
    if (!vars) return vars.error();
    server.env = std::move(*vars);
    if (entry.contains("cwd")) {
      auto cwd = expand_string(entry["cwd"], where + ".cwd", env);
      if (!cwd) return cwd.error();
      server.cwd = std::move(*cwd);
    }
  } else {
    server.kind = transport_kind::http;
    auto url = expand_string(entry["url"], where + ".url", env);
    if (!url) return url.error();
    if (url->rfind("http://", 0) != 0) {
      return make_error(mcp::errc::invalid_config, where + ".url: only http:// URLs are supported",
                        "run a local TLS-terminating proxy for https servers");
    }
    server.url = std::move(*url);
    auto headers = expand_map(entry.value("headers", json()), where + ".headers", env);
    if (!headers) return headers.error();
    server.headers = std::move(*headers);
  }
  if (entry.contains("required")) {
    if (!entry["required"].is_boolean())
      return make_error(mcp::errc::invalid_config, where + ".required: expected true/false");
    server.required = entry["required"].get<bool>();
  }
  if (entry.contains("timeoutMs")) {
    const auto& t = entry["timeoutMs"];
    if (!t.is_number_integer() || t.get<std::int64_t>() < 1 || t.get<std::int64_t>() > 3600000) {
      return make_error(mcp::errc::invalid_config, where + ".timeoutMs: expected an integer 1..3600000");
    }
    server.timeout = std::chrono::milliseconds(t.get<std::int64_t>());
  }
  return server;
}

}  // namespace

env_lookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

result<std::string> expand_variables(const std::string& text, const env_lookup& env) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t open = text.find("${", pos);
    if (open == std::string::npos) {
      out.append(text, pos);
      break;
    }
    out.append(text, pos, open - pos);
    const std::size_t close = closing_brace(text, open);
    if (close == std::string::npos) return make_error(mcp::errc::invalid_config, "unterminated ${ in \"" + text + "\"");
    const std::string inner = text.substr(open + 2, close - open - 2);
    const std::size_t dash = inner.find(":-");
    const std::string name = inner.substr(0, dash);
    if (name.empty()) return make_error(mcp::errc::invalid_config, "empty variable name in \"" + text + "\"");
    auto value = env(name);
    if (value && !value->empty()) {
      out += *value;
    } else if (dash != std::string::npos) {
      auto fallback = expand_variables(inner.substr(dash + 2), env);
      if (!fallback) return fallback;
      out += *fallback;
    } else if (value) {
      out += *value;
    } else {
      return make_error(mcp::errc::invalid_config, "environment variable " + name + " is not set",
                        "set it, or write ${" + name + ":-default}");
    }
    pos = close + 1;
  }
  return out;
}

result<std::vector<server_config>> parse_mcp_servers(const std::string& json_text, const std::string& config_dir,
                                                     const env_lookup& env) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded()) return make_error(mcp::errc::invalid_config, "not valid JSON");
  if (!doc.is_object() || !doc.contains("mcpServers") || !doc["mcpServers"].is_object()) {
    return make_error(mcp::errc::invalid_config, "expected an object with an \"mcpServers\" object");
  }
  env_lookup with_dir = [&](const std::string& name) -> std::optional<std::string> {
    if (name == "MCP_CONFIG_DIR") return config_dir;
    return env(name);
  };
  std::vector<server_config> servers;
  for (const auto& [name, entry] : doc["mcpServers"].items()) {
    if (entry.is_object() && entry.value("disabled", false)) continue;
    auto server = parse_server(name, entry, with_dir);
    if (!server) return server.error();
    servers.push_back(std::move(*server));
  }
  return servers;
}

std::vector<core::setting_spec> mcp_setting_specs() {
  return {
      {"MCP_CONFIG", "servers/mcp.json", "MCP servers file in the mcpServers JSON format"},
      {"MCP_REQUEST_TIMEOUT_MS", "30000", "deadline of one MCP request without progress notifications"},
      {"MCP_MAX_REQUEST_MS", "300000", "hard cap on one MCP request, progress notifications included"},
      {"MCP_STARTUP_TIMEOUT_MS", "60000", "time a server gets to start, initialize and list its tools"},
      {"MCP_SHUTDOWN_GRACE_MS", "2000", "stdio shutdown: wait after closing stdin, then after SIGTERM"},
      {"MCP_MAX_MESSAGE_BYTES", "16777216", "largest MCP message (stdio line, HTTP body, SSE event)"},
      {"MCP_MAX_TOOLS_PER_SERVER", "1000", "most tools taken from one MCP server; the rest are dropped (see /health)"},
  };
}

result<mcp_config> load_mcp_config(const core::settings& settings, const env_lookup& env) {
  mcp_config config;
  auto timeout = settings.get_ms("MCP_REQUEST_TIMEOUT_MS", 1, 3600000);
  if (!timeout) return timeout.error();
  auto max_time = settings.get_ms("MCP_MAX_REQUEST_MS", 1, 24 * 3600000);
  if (!max_time) return max_time.error();
  auto startup = settings.get_ms("MCP_STARTUP_TIMEOUT_MS", 100, 3600000);
  if (!startup) return startup.error();
  auto grace = settings.get_ms("MCP_SHUTDOWN_GRACE_MS", 0, 600000);
  if (!grace) return grace.error();
  auto max_bytes = settings.get_int("MCP_MAX_MESSAGE_BYTES", 1024, std::int64_t{1} << 30);
  if (!max_bytes) return max_bytes.error();
  auto max_tools = settings.get_int("MCP_MAX_TOOLS_PER_SERVER", 1, 100000);
  if (!max_tools) return max_tools.error();
  config.limits.request_timeout = *timeout;
  config.limits.max_request_time = std::max(*max_time, *timeout);
  config.limits.startup_timeout = *startup;
  config.limits.shutdown_grace = *grace;
  config.limits.max_message_bytes = static_cast<std::size_t>(*max_bytes);
  config.limits.max_tools_per_server = static_cast<std::size_t>(*max_tools);

  config.config_path = settings.get("MCP_CONFIG");
  std::ifstream file(config.config_path, std::ios::binary);
  if (!file) {
    return make_error(mcp::errc::invalid_config, "cannot read MCP config file " + config.config_path,
                      "set MCP_CONFIG to an mcpServers JSON file");
  }
  std::stringstream text;
  text << file.rdbuf();
  std::error_code ec;
  auto dir = std::filesystem::absolute(std::filesystem::path(config.config_path), ec).parent_path();
  auto servers = parse_mcp_servers(text.str(), dir.lexically_normal().string(), env);
  if (!servers) {
    return make_error(servers.error().code, config.config_path + ": " + servers.error().message, servers.error().hint);
  }
  config.servers = std::move(*servers);
  return config;
}

}  // namespace harness::mcp
