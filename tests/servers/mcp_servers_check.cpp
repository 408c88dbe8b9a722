#include "servers/mcp_servers_check.hpp"

#include <cctype>

namespace harness::servers_test {
namespace {

using nlohmann::json;

bool is_var_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// Appends a problem for every key of `object` outside `allowed`.
void check_keys(const json& object, const std::set<std::string>& allowed, const std::string& where,
                std::vector<std::string>& problems) {
  for (const auto& [key, value] : object.items()) {
    if (!allowed.contains(key)) problems.push_back(where + ": unexpected key \"" + key + "\"");
  }
}

// env and headers: an object of strings; ${VAR} references must be declared.
void check_string_map(const json& map, const std::string& where, bool keys_are_var_names,
                      const std::set<std::string>& declared_env, std::vector<std::string>& problems) {
  if (!map.is_object()) {
    problems.push_back(where + " must be an object of strings");
    return;
  }
  for (const auto& [key, value] : map.items()) {
    if (keys_are_var_names && !is_var_name(key)) problems.push_back(where + ": \"" + key + "\" is not a variable name");
    if (!value.is_string()) {
      problems.push_back(where + "." + key + " must be a string");
      continue;
    }
    std::vector<std::string> malformed;
    for (const auto& var : referenced_vars(value.get<std::string>(), &malformed)) {
      if (!declared_env.contains(var)) {
        problems.push_back(where + "." + key + " references ${" + var + "}, which is not in the entry's required_env");
      }
    }
    for (const auto& bad : malformed) problems.push_back(where + "." + key + ": malformed reference \"" + bad + "\"");
  }
}

// A ${VAR} where the client does not expand it would reach the server verbatim.
void check_not_expanded(const std::string& text, const std::string& where, std::vector<std::string>& problems) {
  std::vector<std::string> malformed;
  if (!referenced_vars(text, &malformed).empty() || !malformed.empty()) {
    problems.push_back(where + " contains ${...}, but the client expands variables only in env and headers");
  }
}

void check_stdio(const json& server, const std::string& where, const std::set<std::string>& declared_env,
                 std::vector<std::string>& problems) {
  check_keys(server, {"command", "args", "env"}, where, problems);
  const auto command = server.find("command");
  if (command == server.end() || !command->is_string() || command->get<std::string>().empty()) {
    problems.push_back(where + ".command must be a non-empty string");
  } else {
    check_not_expanded(command->get<std::string>(), where + ".command", problems);
  }
  const auto args = server.find("args");
  if (args == server.end() || !args->is_array()) {
    problems.push_back(where + ".args must be an array of strings");
  } else {
    for (std::size_t i = 0; i < args->size(); ++i) {
      const auto& arg = (*args)[i];
      const std::string at = where + ".args[" + std::to_string(i) + "]";
      if (!arg.is_string()) {
        problems.push_back(at + " must be a string");
      } else {
        check_not_expanded(arg.get<std::string>(), at, problems);
      }
    }
  }
  const auto env = server.find("env");
  if (env == server.end()) {
    problems.push_back(where + ".env is missing (use {} for none)");
  } else {
    check_string_map(*env, where + ".env", true, declared_env, problems);
  }
}

void check_http(const json& server, const std::string& where, const std::set<std::string>& declared_env,
                std::vector<std::string>& problems) {
  check_keys(server, {"url", "headers"}, where, problems);
  const auto& url = server.at("url");
  const std::string text = url.is_string() ? url.get<std::string>() : "";
  if (!text.starts_with("http://") && !text.starts_with("https://")) {
    problems.push_back(where + ".url must be a string starting with http:// or https://");
  } else {
    check_not_expanded(text, where + ".url", problems);
  }
  const auto headers = server.find("headers");
  if (headers == server.end()) {
    problems.push_back(where + ".headers is missing (use {} for none)");
  } else {
    check_string_map(*headers, where + ".headers", false, declared_env, problems);
  }
}

}  // namespace

std::vector<std::string> referenced_vars(const std::string& text, std::vector<std::string>* malformed) {
  std::vector<std::string> names;
  for (std::size_t at = text.find("${"); at != std::string::npos; at = text.find("${", at + 2)) {
    const std::size_t close = text.find('}', at + 2);
    const std::string name = close == std::string::npos ? std::string{} : text.substr(at + 2, close - at - 2);
    if (is_var_name(name)) {
      names.push_back(name);
    } else if (malformed != nullptr) {
      malformed->push_back(close == std::string::npos ? text.substr(at) : text.substr(at, close - at + 1));
    }
  }
  return names;
}

std::vector<std::string> check_mcp_servers_config(const json& doc, const std::set<std::string>& declared_env) {
  std::vector<std::string> problems;
  if (!doc.is_object()) return {"the config must be a JSON object"};
  check_keys(doc, {"mcpServers"}, "the config", problems);
  const auto servers = doc.find("mcpServers");
  if (servers == doc.end() || !servers->is_object()) {
    problems.push_back("mcpServers must be an object");
    return problems;
  }
  if (servers->size() != 1) {
    problems.push_back("mcpServers must hold exactly one server, not " + std::to_string(servers->size()));
  }
  for (const auto& [key, server] : servers->items()) {
    const std::string where = "mcpServers." + key;
    if (key.empty()) problems.push_back("a server key is empty");
    if (!server.is_object()) {
      problems.push_back(where + " must be an object");
    } else if (server.contains("url")) {
      check_http(server, where, declared_env, problems);
    } else {
      check_stdio(server, where, declared_env, problems);
    }
  }
  return problems;
}

}  // namespace harness::servers_test
