#include "servers/catalog_entry_check.hpp"

#include <filesystem>
#include <map>

#include "servers/mcp_servers_check.hpp"

namespace harness::servers_test {
namespace {

using nlohmann::json;

class entry_checker {
 public:
  explicit entry_checker(const json& entry) : entry_(entry) {
    const json* name = find("name");
    prefix_ = (name != nullptr && name->is_string() ? name->get<std::string>() : std::string("<unnamed>")) + ": ";
  }

  std::vector<std::string> run() {
    if (!entry_.is_object()) return {"a catalog entry is not an object"};
    const std::string name = text("name");
    if (name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
      fail("name must be lower-case letters, digits and dashes");
    }
    const std::string category = one_of("category", {"official", "archived", "community"});
    const std::string status = one_of("status", {"active", "archived", "deprecated"});
    if (category == "archived" && status != "archived") fail("an archived-category server must have status archived");
    text("description");
    if (!text("homepage").starts_with("https://github.com/")) fail("homepage must be a https://github.com/ address");
    one_of("language", {"typescript", "python", "go"});
    const std::string install = text("install");
    check_env_list("required_env");
    check_env_list("optional_env");
    check_package(install);
    check_notes();
    check_tested_here();
    check_transport_and_snippet(name);
    return problems_;
  }

 private:
  const json* find(const std::string& key) const {
    const auto it = entry_.find(key);
    return it == entry_.end() ? nullptr : &*it;
  }

  void fail(const std::string& what) { problems_.push_back(prefix_ + what); }

  // The non-empty string at key, or "" after reporting a problem.
  std::string text(const std::string& key, const json* within = nullptr, const std::string& label = {}) {
    const json& object = within == nullptr ? entry_ : *within;
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string() || it->get<std::string>().empty()) {
      fail((label.empty() ? key : label) + " must be a non-empty string");
      return {};
    }
    return it->get<std::string>();
  }

  std::string one_of(const std::string& key, const std::set<std::string>& allowed) {
    const std::string value = text(key);
    if (!value.empty() && !allowed.contains(value)) fail(key + " \"" + value + "\" is not an allowed value");
    return value;
  }

  void check_env_list(const std::string& key) {
    const json* list = find(key);
    if (list == nullptr || !list->is_array()) {
      fail(key + " must be an array");
      return;
    }
    for (const auto& var : *list) {
      if (!var.is_object()) {
        fail(key + " holds a non-object");
        continue;
      }
      const std::string var_name = text("name", &var, key + "[].name");
      text("description", &var, key + "[" + var_name + "].description");
      const auto secret = var.find("secret");
      if (secret == var.end() || !secret->is_boolean()) fail(key + "[" + var_name + "].secret must be true or false");
    }
    if (key == "optional_env") {
      for (const auto& var_name : env_names(entry_, key)) {
        if (env_names(entry_, "required_env").contains(var_name)) fail(var_name + " is both required and optional");
      }
    }
  }

  void check_package(const std::string& install) {
    const json* package = find("package");
    if (package == nullptr || !package->is_object()) {
      fail("package must be an object");
      return;
    }
    const std::string registry = text("registry", package, "package.registry");
    if (!registry.empty() && registry != "npm" && registry != "pypi" && registry != "source") {
      fail("package.registry \"" + registry + "\" is not npm, pypi or source");
    }
    package_name_ = text("name", package, "package.name");
    registry_ = registry;
    text("checked", package, "package.checked");
    if (!package_name_.empty() && install.find(package_name_) == std::string::npos) {
      fail("install does not mention the package " + package_name_);
    }
  }

  void check_notes() {
    const json* notes = find("notes");
    if (notes == nullptr || !notes->is_array() || notes->empty()) {
      fail("notes must be a non-empty array");
      return;
    }
    for (const auto& note : *notes) {
      if (!note.is_string() || note.get<std::string>().empty()) fail("every note must be a non-empty string");
    }
  }

  // {status, version, protocol, needs, test}: whether this machine ran the
  // server, which version and protocol it answered with, what it needs, and
  // the test that runs it. A tested or listed server names its version,
  // protocol and a test file that exists; one not run says why in `needs`.
  void check_tested_here() {
    const json* tested = find("tested_here");
    if (tested == nullptr || !tested->is_object()) {
      fail("tested_here must be an object");
      return;
    }
    for (const char* key : {"status", "version", "protocol", "needs", "test"}) {
      auto it = tested->find(key);
      if (it == tested->end() || !it->is_string()) fail(std::string("tested_here.") + key + " must be a string");
    }
    const std::string status = tested->value("status", "");
    if (status != "tested" && status != "listed" && status != "not_run") {
      fail("tested_here.status must be tested, listed or not_run");
      return;
    }
    if (tested->value("needs", "").empty()) fail("tested_here.needs must say what the server needs (or why not run)");
    if (status == "not_run") return;
    if (tested->value("version", "").empty()) fail("tested_here.version is required once it ran");
    const std::string protocol = tested->value("protocol", "");
    if (protocol != "2024-11-05" && protocol != "2025-03-26" && protocol != "2025-06-18" && protocol != "2025-11-25") {
      fail("tested_here.protocol must be a protocol version the client speaks");
    }
    const std::string tests = tested->value("test", "");
    if (tests.empty()) fail("tested_here.test must name the test that runs it");
    std::size_t start = 0;
    while (start < tests.size()) {
      auto comma = tests.find(", ", start);
      const std::string file = tests.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!std::filesystem::exists(std::filesystem::path(HARNESS_TEST_SOURCE_DIR) / file)) {
        fail("tested_here.test names " + file + ", which does not exist");
      }
      if (comma == std::string::npos) break;
      start = comma + 2;
    }
  }

  void check_transport_and_snippet(const std::string& name) {
    const std::string transport = one_of("transport", {"stdio", "http"});
    const json* config = find("config");
    if (config == nullptr) {
      fail("config is missing");
      return;
    }
    const auto required = env_names(entry_, "required_env");
    for (const auto& problem : check_mcp_servers_config(*config, required)) fail("config: " + problem);
    if (!config->is_object() || !config->contains("mcpServers") || !(*config)["mcpServers"].is_object()) return;
    const json& servers = (*config)["mcpServers"];
    if (!servers.contains(name)) {
      fail("config's server key must be the entry's name");
      return;
    }
    const json& server = servers[name];
    if (!server.is_object()) return;
    if (transport == "stdio") {
      check_stdio_entry(server);
    } else if (transport == "http") {
      if (find("command") != nullptr || find("args") != nullptr) fail("an http entry has no command or args");
      if (server.value("url", json()) != entry_.value("url", json())) fail("url differs from config's url");
    }
    check_env_use(server, required);
  }

  void check_stdio_entry(const json& server) {
    if (find("url") != nullptr) fail("a stdio entry has no url");
    const json command = entry_.value("command", json());
    const json args = entry_.value("args", json());
    if (server.value("command", json()) != command) fail("command differs from config's command");
    if (server.value("args", json()) != args) fail("args differ from config's args");
    if (!args.is_array() || args.empty()) return;
    // How the package is launched: npx -y <npm package>, uvx <pypi package>.
    if (registry_ == "npm" && (command != "npx" || args.size() < 2 || args[0] != "-y" || args[1] != package_name_)) {
      fail("an npm server must start as npx -y " + package_name_);
    }
    if (registry_ == "pypi" && (command != "uvx" || args[0] != package_name_)) {
      fail("a PyPI server must start as uvx " + package_name_);
    }
  }

  // Every required variable reaches the server (env) or the request (headers)
  // through a ${VAR} reference, and no secret is written out literally.
  void check_env_use(const json& server, const std::set<std::string>& required) {
    std::set<std::string> referenced;
    std::map<std::string, std::string> literal;
    for (const char* map : {"env", "headers"}) {
      const auto it = server.find(map);
      if (it == server.end() || !it->is_object()) continue;
      for (const auto& [key, value] : it->items()) {
        if (!value.is_string()) continue;
        const auto vars = referenced_vars(value.get<std::string>());
        referenced.insert(vars.begin(), vars.end());
        if (vars.empty()) literal[key] = value.get<std::string>();
      }
    }
    for (const auto& var : required) {
      if (!referenced.contains(var)) fail("required variable " + var + " is not referenced in the config");
    }
    for (const char* list : {"required_env", "optional_env"}) {
      for (const auto& var : entry_.value(list, json::array())) {
        if (!var.is_object() || !var.contains("secret") || var["secret"] != true) continue;
        if (!var.contains("name") || !var["name"].is_string()) continue;
        const std::string var_name = var["name"].get<std::string>();
        if (literal.contains(var_name)) fail("secret " + var_name + " is written literally in the config");
      }
    }
  }

  const json& entry_;
  std::string prefix_;
  std::string registry_;
  std::string package_name_;
  std::vector<std::string> problems_;
};

}  // namespace

std::set<std::string> env_names(const json& entry, const std::string& field) {
  std::set<std::string> names;
  const auto list = entry.find(field);
  if (list == entry.end() || !list->is_array()) return names;
  for (const auto& var : *list) {
    if (var.is_object() && var.contains("name") && var["name"].is_string())
      names.insert(var["name"].get<std::string>());
  }
  return names;
}

std::vector<std::string> check_catalog_entry(const json& entry) {
  return entry_checker(entry).run();
}

}  // namespace harness::servers_test
