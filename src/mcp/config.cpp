#include "harness/mcp/config.hpp"
#include "harness/core/json_parse.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/net/address_guard.hpp"
#include "harness/net/url.hpp"
#include "secret_fill.hpp"

#include <algorithm>
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

// A secret must be a ${VAR} reference alone: the file never holds its value.
bool is_variable_reference(const json& value) {
  if (!value.is_string()) return false;
  const auto text = value.get<std::string>();
  return text.size() > 3 && text.rfind("${", 0) == 0 && text.back() == '}' && text.find('}') == text.size() - 1;
}

result<identity_provider_config> parse_identity_provider(const json& block, const std::string& where,
                                                         const env_lookup& env) {
  if (!block.is_object()) return make_error(mcp::errc::invalid_config, where + ": expected an object");
  identity_provider_config out;
  const std::vector<std::pair<const char*, std::string*>> fields = {{"tokenEndpoint", &out.token_endpoint},
                                                                    {"clientId", &out.client_id},
                                                                    {"clientSecret", &out.client_secret},
                                                                    {"idToken", &out.id_token}};
  for (const auto& [key, value] : block.items()) {
    bool known = false;
    for (const auto& [name, into] : fields) known = known || key == name;
    if (!known) {
      return make_error(mcp::errc::invalid_config, where + "." + key + ": unknown field",
                        "known: tokenEndpoint, clientId, clientSecret, idToken");
    }
  }
  for (const auto& [name, into] : fields) {
    if (!block.contains(name)) continue;
    const bool secret = std::string_view(name) == "clientSecret" || std::string_view(name) == "idToken";
    if (secret && !is_variable_reference(block[name])) {
      return make_error(mcp::errc::invalid_config, where + "." + name + ": a secret must be written as ${VAR}",
                        "put the value in an environment variable (or .env) and write \"${VAR}\" here");
    }
    auto value = expand_string(block[name], where + "." + name, env);
    if (!value) return value.error();
    *into = std::move(*value);
  }
  if (!out.token_endpoint.empty() && !net::parse_url(out.token_endpoint)) {
    return make_error(mcp::errc::invalid_config, where + ".tokenEndpoint: expected an http(s) URL");
  }
  return out;
}

result<oauth_config> parse_oauth(const json& block, const std::string& where, const env_lookup& env) {
  if (!block.is_object()) return make_error(mcp::errc::invalid_config, where + ": expected an object (or false)");
  static const std::vector<std::string> known = {"clientId",
                                                 "clientSecret",
                                                 "clientMetadataUrl",
                                                 "grant",
                                                 "scopes",
                                                 "tokenEndpointAuthMethod",
                                                 "privateKey",
                                                 "privateKeyFile",
                                                 "signingAlgorithm",
                                                 "identityProvider",
                                                 "issuer"};
  for (const auto& [key, value] : block.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return make_error(mcp::errc::invalid_config, where + "." + key + ": unknown field",
                        "known: clientId, clientSecret, clientMetadataUrl, grant, scopes, tokenEndpointAuthMethod, "
                        "privateKey, privateKeyFile, signingAlgorithm, identityProvider, issuer");
    }
  }
  oauth_config out;
  auto text = [&](const char* field, std::string& into) -> status {
    if (!block.contains(field)) return {};
    auto value = expand_string(block[field], where + "." + field, env);
    if (!value) return value.error();
    into = std::move(*value);
    return {};
  };
  for (const char* secret : {"clientSecret", "privateKey"}) {
    if (block.contains(secret) && !is_variable_reference(block[secret])) {
      return make_error(mcp::errc::invalid_config, where + "." + secret + ": a secret must be written as ${VAR}",
                        "put the value in an environment variable (or .env) and write \"${VAR}\" here");
    }
  }
  std::string grant, key_file;
  for (auto st : {text("clientId", out.client_id), text("clientSecret", out.client_secret),
                  text("clientMetadataUrl", out.client_metadata_url), text("grant", grant),
                  text("tokenEndpointAuthMethod", out.token_endpoint_auth_method),
                  text("privateKey", out.private_key_pem), text("privateKeyFile", key_file),
                  text("signingAlgorithm", out.signing_algorithm), text("issuer", out.issuer)}) {
    if (!st) return st.error();
  }
  if (!out.issuer.empty() && !net::parse_url(out.issuer)) {
    return make_error(mcp::errc::invalid_config, where + ".issuer: expected the authorization server's issuer URL");
  }
  if (grant.empty() || grant == "authorization_code") {
    out.grant = oauth_config::grant_type::authorization_code;
  } else if (grant == "client_credentials") {
    out.grant = oauth_config::grant_type::client_credentials;
  } else if (grant == "identity_assertion") {
    out.grant = oauth_config::grant_type::identity_assertion;
  } else {
    return make_error(mcp::errc::invalid_config, where +
                                                     ".grant: expected \"authorization_code\", "
                                                     "\"client_credentials\" or \"identity_assertion\"");
  }
  if (block.contains("identityProvider")) {
    auto idp = parse_identity_provider(block["identityProvider"], where + ".identityProvider", env);
    if (!idp) return idp.error();
    out.identity_provider = std::move(*idp);
  }
  if (out.grant == oauth_config::grant_type::identity_assertion &&
      (out.identity_provider.token_endpoint.empty() || out.identity_provider.id_token.empty() ||
       out.client_id.empty())) {
    return make_error(mcp::errc::invalid_config,
                      where +
                          ": the identity_assertion grant needs clientId and identityProvider.tokenEndpoint and "
                          ".idToken");
  }
  static const std::vector<std::string> methods = {"", "client_secret_basic", "client_secret_post", "none",
                                                   "private_key_jwt"};
  if (std::find(methods.begin(), methods.end(), out.token_endpoint_auth_method) == methods.end()) {
    return make_error(mcp::errc::invalid_config, where +
                                                     ".tokenEndpointAuthMethod: expected client_secret_basic, "
                                                     "client_secret_post, none or private_key_jwt");
  }
  if (block.contains("scopes")) {
    if (!block["scopes"].is_array()) return make_error(mcp::errc::invalid_config, where + ".scopes: expected an array");
    for (std::size_t i = 0; i < block["scopes"].size(); ++i) {
      auto scope = expand_string(block["scopes"][i], where + ".scopes[" + std::to_string(i) + "]", env);
      if (!scope) return scope.error();
      if (!scope->empty()) out.scopes.push_back(std::move(*scope));
    }
  }
  if (!key_file.empty()) {
    if (!out.private_key_pem.empty()) {
      return make_error(mcp::errc::invalid_config, where + ": give privateKey or privateKeyFile, not both");
    }
    std::ifstream file(key_file, std::ios::binary);
    std::stringstream pem;
    pem << file.rdbuf();
    if (!file) return make_error(mcp::errc::invalid_config, where + ".privateKeyFile: cannot read " + key_file);
    out.private_key_pem = pem.str();
  }
  if (!out.private_key_pem.empty() && out.token_endpoint_auth_method.empty()) {
    out.token_endpoint_auth_method = "private_key_jwt";
  }
  if (out.token_endpoint_auth_method == "private_key_jwt" && out.private_key_pem.empty()) {
    return make_error(mcp::errc::invalid_config, where + ": private_key_jwt needs privateKey or privateKeyFile");
  }
  if (out.grant == oauth_config::grant_type::client_credentials && out.client_id.empty()) {
    return make_error(mcp::errc::invalid_config, where + ": the client_credentials grant needs a clientId");
  }
  if (!out.client_metadata_url.empty()) {
    auto parsed = net::parse_url(out.client_metadata_url);
    if (!parsed || parsed->scheme != "https" || parsed->path == "/") {
      return make_error(mcp::errc::invalid_config, where + ".clientMetadataUrl: expected an https URL with a path");
    }
  }
  return out;
}

// Where in `value` (a field of a server entry, any depth) `text` is written, or "".
std::string where_written(const json& value, std::string_view text, const std::string& where) {
  if (value.is_string()) return value.get<std::string>().find(text) != std::string::npos ? where : std::string();
  if (value.is_array() || value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      auto found = where_written(item, text, where + (value.is_array() ? "[" + key + "]" : "." + key));
      if (!found.empty()) return found;
    }
  }
  return {};
}

std::string user_id_reference(const json& value, const std::string& where) {
  return where_written(value, user_id_placeholder, where);
}

std::string secret_reference(const json& value, const std::string& where) {
  return where_written(value, secret_placeholder_open, where);
}

// `${secret:NAME}` only in a user-scoped server's args, env and headers: the
// acting user's value goes to that user's instance and nowhere else.
status check_secret_references(const json& entry, const std::string& where, server_scope scope) {
  for (const char* field : {"command", "cwd", "url", "directories", "oauth"}) {
    auto found = secret_reference(entry.value(field, json()), where + "." + field);
    if (!found.empty()) {
      return make_error(mcp::errc::invalid_config,
                        found + ": ${secret:NAME} can only be written in args, env or headers");
    }
  }
  if (scope == server_scope::user) return {};
  for (const char* field : {"args", "env", "headers"}) {
    auto found = secret_reference(entry.value(field, json()), where + "." + field);
    if (!found.empty()) {
      return make_error(mcp::errc::invalid_config, found + ": ${secret:NAME} needs \"scope\": \"user\"",
                        "a user's secret goes to that user's own instance: add \"scope\": \"user\", or write "
                        "${VAR} for a value every user shares");
    }
  }
  return {};
}

// The entry's "scope", and that `${user.id}` appears only where it can be filled in.
result<server_scope> parse_scope(const json& entry, const std::string& where) {
  server_scope scope = server_scope::shared;
  if (entry.contains("scope")) {
    const auto& value = entry["scope"];
    if (value != "shared" && value != "user") {
      return make_error(mcp::errc::invalid_config, where + ".scope: expected \"shared\" or \"user\"");
    }
    scope = value == "user" ? server_scope::user : server_scope::shared;
  }
  if (auto in_command = user_id_reference(entry.value("command", json()), where + ".command"); !in_command.empty()) {
    return make_error(mcp::errc::invalid_config, in_command + ": ${user.id} cannot choose the program",
                      "name the user in args, env, cwd, url or headers");
  }
  if (scope == server_scope::shared) {
    for (const char* field : {"args", "env", "cwd", "url", "headers", "directories"}) {
      auto found = user_id_reference(entry.value(field, json()), where + "." + field);
      if (!found.empty()) {
        return make_error(mcp::errc::invalid_config, found + ": ${user.id} needs \"scope\": \"user\"",
                          "add \"scope\": \"user\" to run one instance of this server per user");
      }
    }
  }
  if (auto ok = check_secret_references(entry, where, scope); !ok) return ok.error();
  return scope;
}

result<server_config> parse_server(const std::string& name, const json& entry, const env_lookup& process) {
  const std::string where = "mcpServers." + name;
  if (!valid_server_name(name)) {
    return make_error(mcp::errc::invalid_config, where + ": invalid server name",
                      "use 1-64 characters of letters, digits, '-' and '_', without \"__\"");
  }
  if (!entry.is_object()) return make_error(mcp::errc::invalid_config, where + ": expected an object");
  server_config server;
  server.name = name;
  auto scope = parse_scope(entry, where);
  if (!scope) return scope.error();
  server.scope = *scope;
  // ${user.id} stays as written: each user's instance fills it in (user_servers.cpp).
  const env_lookup env = [&process](const std::string& var) -> std::optional<std::string> {
    if (var == "user.id") return std::string(user_id_placeholder);
    // ${secret:NAME} stays as written too: filled in from the user's secrets.
    if (var.rfind("secret:", 0) == 0) return "${" + var + "}";
    return process(var);
  };
  const bool has_command = entry.contains("command");
  const bool has_url = entry.contains("url");
  if (has_command == has_url) {
    return make_error(mcp::errc::invalid_config,
                      where + ": needs exactly one of \"command\" (stdio) or \"url\" (HTTP)");
  }
  if (entry.contains("type")) {
    const auto& type = entry["type"];
    const bool ok = type.is_string() && (type == "stdio" || type == "http" || type == "streamable-http" ||
                                         type == "streamableHttp" || type == "sse");
    if (!ok) {
      return make_error(mcp::errc::invalid_config, where + ".type: expected \"stdio\", \"http\" or \"sse\"");
    }
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
    server.kind = entry.value("type", json()) == "sse" ? transport_kind::sse : transport_kind::http;
    auto url = expand_string(entry["url"], where + ".url", env);
    if (!url) return url.error();
    if (auto parsed = net::parse_url(*url); !parsed) {
      return make_error(mcp::errc::invalid_config, where + ".url: " + parsed.error().message, parsed.error().hint);
    }
    server.url = std::move(*url);
    auto headers = expand_map(entry.value("headers", json()), where + ".headers", env);
    if (!headers) return headers.error();
    server.headers = std::move(*headers);
    // Whether OAuth discovery may reach addresses that are not public: the
    // operator says so, else only for a server that is itself on such an address.
    if (entry.contains("allowPrivateNetwork")) {
      if (!entry["allowPrivateNetwork"].is_boolean()) {
        return make_error(mcp::errc::invalid_config, where + ".allowPrivateNetwork: expected true/false");
      }
      server.allow_private_network = entry["allowPrivateNetwork"].get<bool>();
    } else {
      server.allow_private_network = !net::is_public_host(net::parse_url(server.url)->host);
    }
    if (entry.contains("oauth")) {
      if (entry["oauth"] == false) {
        server.oauth_disabled = true;
      } else {
        auto oauth = parse_oauth(entry["oauth"], where + ".oauth", env);
        if (!oauth) return oauth.error();
        server.oauth = std::move(*oauth);
      }
    }
  }
  if (has_command && entry.contains("allowPrivateNetwork")) {
    return make_error(mcp::errc::invalid_config, where + ".allowPrivateNetwork: only remote (url) servers fetch URLs");
  }
  if (has_command && entry.contains("oauth")) {
    return make_error(mcp::errc::invalid_config, where + ".oauth: only remote (url) servers use OAuth");
  }
  if (entry.contains("directories")) {
    const auto& dirs = entry["directories"];
    if (!dirs.is_array()) return make_error(mcp::errc::invalid_config, where + ".directories: expected an array");
    for (std::size_t i = 0; i < dirs.size(); ++i) {
      auto dir = expand_string(dirs[i], where + ".directories[" + std::to_string(i) + "]", env);
      if (!dir) return dir.error();
      server.directories.push_back(std::move(*dir));
    }
  }
  // Each user of a user-scoped server authorizes as themselves: only the
  // grant a person approves fits; the others act as the harness for everyone.
  if (server.scope == server_scope::user && uses_oauth(server) && server.oauth &&
      server.oauth->grant != oauth_config::grant_type::authorization_code) {
    return make_error(mcp::errc::invalid_config,
                      where + ".oauth.grant: a user-scoped server authorizes each user with authorization_code",
                      "client_credentials and identity_assertion act as the harness for every user: keep such a "
                      "server shared");
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
  if (auto names = detail::secret_names(server); !names) return names.error();
  return server;
}

}  // namespace

bool uses_oauth(const server_config& server) {
  if (server.kind != transport_kind::http || server.oauth_disabled) return false;
  if (server.oauth) return true;
  for (const auto& [name, value] : server.headers) {
    std::string lower = name;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "authorization") return false;
  }
  return true;
}

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
  std::string why;
  json doc = core::parse_json(json_text, &why);
  if (doc.is_discarded()) return make_error(mcp::errc::invalid_config, "not valid JSON: " + why);
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
      {"MCP_USER_SERVER_IDLE_MS", "600000",
       "a user's instance of a \"scope\": \"user\" MCP server is stopped after this long without calls"},
      {"MCP_MAX_USER_SERVERS", "32",
       "most instances of user-scoped MCP servers at once (idle ones are stopped to make room)"},
      {"OAUTH_REDIRECT_URL", "",
       "where authorization servers send the browser back (this server's /oauth/callback as the browser reaches "
       "it); empty: http://127.0.0.1:<PORT>/oauth/callback"},
      {"OAUTH_TOKEN_FILE", "",
       "remote MCP servers' OAuth tokens and registered clients, sealed with the vault key (mode 600); empty: "
       "oauth-tokens.json beside STORE_PATH"},
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
  auto user_idle = settings.get_ms("MCP_USER_SERVER_IDLE_MS", 100, 7 * 24 * 3600000LL);
  if (!user_idle) return user_idle.error();
  auto user_max = settings.get_int("MCP_MAX_USER_SERVERS", 1, 10000);
  if (!user_max) return user_max.error();
  config.user_servers.idle = *user_idle;
  config.user_servers.max_instances = static_cast<std::size_t>(*user_max);

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
