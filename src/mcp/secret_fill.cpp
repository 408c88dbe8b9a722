#include "secret_fill.hpp"

#include <algorithm>
#include <optional>

#include "harness/mcp/errors.hpp"
#include "harness/mcp/secret_source.hpp"

namespace harness::mcp::detail {
using nlohmann::json;

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Calls `on(name, open, close)` for each ${secret:NAME} in `text`.
template <class F>
void each_reference(const std::string& text, F&& on) {
  const std::string open(secret_placeholder_open);
  for (auto at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
    const auto close = text.find('}', at);
    if (close == std::string::npos) return;
    on(text.substr(at + open.size(), close - at - open.size()), at, close);
  }
}

template <class F>
void each_field(server_config& server, F&& on) {
  for (auto& arg : server.args) on(arg);
  for (auto& [name, value] : server.env) on(value);
  for (auto& [name, value] : server.headers) on(value);
}

json map_strings(json value, const auto& change) {
  if (value.is_string()) return change(value.get<std::string>());
  if (value.is_array()) {
    for (auto& item : value) item = map_strings(std::move(item), change);
    return value;
  }
  if (value.is_object()) {
    json out = json::object();
    for (auto& [key, item] : value.items()) out[change(key)] = map_strings(std::move(item), change);
    return out;
  }
  return value;
}

}  // namespace

result<std::vector<std::string>> secret_names(const server_config& server) {
  std::vector<std::string> names;
  std::optional<std::string> bad;
  auto copy = server;
  each_field(copy, [&](const std::string& text) {
    each_reference(text, [&](const std::string& name, std::size_t, std::size_t) {
      if (!valid_secret_name(name) && !bad) bad = name;
      names.push_back(name);
    });
  });
  if (bad) {
    return make_error(mcp::errc::invalid_config, "mcpServers." + server.name + ": invalid secret name '" + *bad + "'",
                      "a secret's name is 1-64 letters, digits and '_', not starting with a digit");
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

result<server_config> fill_secrets(server_config server, const std::map<std::string, std::string>& values,
                                   const std::string& user) {
  std::string missing;
  each_field(server, [&](std::string& text) {
    std::string out;
    std::size_t from = 0;
    each_reference(text, [&](const std::string& name, std::size_t open, std::size_t close) {
      out.append(text, from, open - from);
      auto found = values.find(name);
      if (found == values.end()) {
        if (missing.empty()) missing = name;
      } else {
        out += found->second;
      }
      from = close + 1;
    });
    out.append(text, from);
    text = std::move(out);
  });
  if (!missing.empty()) {
    // The how-to is in the message too: code in a sandbox sees the message only.
    const std::string how = "PUT /secrets/" + missing +
                            " with {\"value\": \"...\"}, or `mcp-harness secrets set --user " + user + " " + missing +
                            "` with the value on standard input";
    return make_error(mcp::errc::secret_missing,
                      "MCP server " + server.name + " needs the secret " + missing +
                          ", which is not set for this user; set it with " + how,
                      "set it with " + how);
  }
  return server;
}

secret_mask::secret_mask(const std::map<std::string, std::string>& values) {
  int n = 0;
  for (const auto& [name, value] : values) {
    const std::string quoted = json(value).dump();
    entries_.push_back({value, quoted.substr(1, quoted.size() - 2), "[SECRET_" + std::to_string(++n) + "]"});
  }
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const entry& a, const entry& b) { return a.value.size() > b.value.size(); });
}

std::string secret_mask::censor(std::string text) const {
  for (const auto& e : entries_) {
    text = replace_all(std::move(text), e.value, e.token);
    if (e.escaped != e.value) text = replace_all(std::move(text), e.escaped, e.token);
  }
  return text;
}

json secret_mask::censor(json value) const {
  if (entries_.empty()) return value;
  return map_strings(std::move(value), [this](const std::string& s) { return censor(s); });
}

error secret_mask::censor(error e) const {
  e.message = censor(std::move(e.message));
  e.hint = censor(std::move(e.hint));
  return e;
}

json secret_mask::restore(json arguments) const {
  if (entries_.empty()) return arguments;
  return map_strings(std::move(arguments), [this](const std::string& s) {
    std::string out = s;
    for (const auto& e : entries_) out = replace_all(std::move(out), e.token, e.value);
    return out;
  });
}

}  // namespace harness::mcp::detail
