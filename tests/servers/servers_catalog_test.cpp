// servers/catalog.json and its READMEs: the seed's 18 servers, each entry
// well formed, each snippet a loadable mcpServers config, each category README
// in step with the catalog.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/mcp/config.hpp"
#include "servers/catalog_entry_check.hpp"
#include "servers/catalog_files.hpp"
#include "servers/mcp_servers_check.hpp"

namespace harness::servers_test {
namespace {

using nlohmann::json;

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += "\n  " + line;
  return text;
}

// The seed's collection, by category; the catalog must hold exactly these.
const std::map<std::string, std::set<std::string>> seed_servers = {
    {"official", {"filesystem", "git", "memory", "fetch", "everything", "time", "sequential-thinking"}},
    {"archived", {"postgres", "redis", "sqlite", "puppeteer", "sentry"}},
    {"community", {"mongodb", "greptimedb", "unstructured", "semgrep", "mcp-installer", "postgres-community"}},
};

class ServersCatalog : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = load_catalog();
    ASSERT_TRUE(catalog_.is_object());
    ASSERT_TRUE(catalog_.contains("servers") && catalog_["servers"].is_array()) << "catalog.json needs a servers array";
  }

  const json& servers() const { return catalog_["servers"]; }

  std::map<std::string, std::set<std::string>> names_by_category() const {
    std::map<std::string, std::set<std::string>> names;
    for (const auto& entry : servers()) names[entry.value("category", "")].insert(entry.value("name", ""));
    return names;
  }

  json catalog_;
};

TEST_F(ServersCatalog, HoldsTheSeedsEighteenServersOnceEach) {
  ASSERT_EQ(servers().size(), 18u);
  std::set<std::string> names;
  for (const auto& entry : servers()) {
    const std::string name = entry.value("name", "");
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
  }
  EXPECT_EQ(names_by_category(), seed_servers);
}

TEST_F(ServersCatalog, EveryEntryIsWellFormedAndItsSnippetLoads) {
  std::vector<std::string> problems;
  for (const auto& entry : servers()) {
    const auto found = check_catalog_entry(entry);
    problems.insert(problems.end(), found.begin(), found.end());
  }
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

// The catalog's own checks above are stricter than a loader needs; this one
// feeds every snippet to the harness's real MCP config loader, with each
// ${VAR} it references set, as a user who copies it would.
TEST_F(ServersCatalog, EverySnippetLoadsThroughTheRealConfigLoader) {
  const mcp::env_lookup env = [](const std::string& name) -> std::optional<std::string> { return "value-of-" + name; };
  for (const auto& entry : servers()) {
    const std::string name = entry.value("name", "");
    SCOPED_TRACE(name);
    auto loaded = mcp::parse_mcp_servers(entry["config"].dump(), "/opt/mcp", env);
    ASSERT_TRUE(loaded) << loaded.error().describe();
    ASSERT_EQ(loaded->size(), 1u);
  }
}

TEST_F(ServersCatalog, EachCategoryReadmeShowsEachOfItsServersWithTheCatalogSnippet) {
  for (const auto& [category, expected] : names_by_category()) {
    SCOPED_TRACE("servers/" + category + "/README.md");
    const auto blocks = json_blocks_by_server_heading(read_source_file("servers/" + category + "/README.md"));
    std::set<std::string> documented;
    for (const auto& [name, block] : blocks) documented.insert(name);
    EXPECT_EQ(documented, expected) << "each server needs a \"## `name`\" section, and no other servers";
    for (const auto& entry : servers()) {
      if (entry.value("category", "") != category) continue;
      const std::string name = entry.value("name", "");
      const auto block = blocks.find(name);
      if (block == blocks.end()) continue;
      ASSERT_FALSE(block->second.empty()) << name << " has no ```json snippet";
      const json snippet = json::parse(block->second, nullptr, false);
      ASSERT_FALSE(snippet.is_discarded()) << name << "'s snippet is not valid JSON";
      EXPECT_EQ(snippet, entry["config"]) << name << "'s README snippet differs from catalog.json";
    }
  }
}

TEST_F(ServersCatalog, ReadmeExplainsHowToAddAServer) {
  const std::string section = markdown_section(read_source_file("servers/README.md"), "Adding a server");
  ASSERT_FALSE(section.empty()) << "servers/README.md needs a \"## Adding a server\" section";
  for (const char* must : {"catalog.json", "README.md", "tests/servers", "required_env", "${"}) {
    EXPECT_NE(section.find(must), std::string::npos) << "the section should mention " << must;
  }
}

TEST_F(ServersCatalog, EveryJsonBlockInTheGuidesParses) {
  for (const char* guide : {"servers/README.md", "servers/QUICKSTART.md"}) {
    const std::string text = read_source_file(guide);
    std::size_t blocks = 0;
    for (std::size_t at = text.find("```json\n"); at != std::string::npos; at = text.find("```json\n", at + 1)) {
      const std::size_t start = at + 8;
      const std::size_t end = text.find("\n```", start);
      ASSERT_NE(end, std::string::npos) << guide << ": unterminated ```json block";
      const json block = json::parse(text.substr(start, end - start + 1), nullptr, false);
      EXPECT_FALSE(block.is_discarded()) << guide << ": a ```json block is not valid JSON:\n"
                                         << text.substr(start, 200);
      ++blocks;
    }
    EXPECT_GT(blocks, 0u) << guide << " should show at least one config";
  }
}

// Suites are named servers_* so that ctest -R servers selects them.

// The checks must be able to fail: each broken config is rejected with the
// reason named.
TEST(ServersMcpConfigCheck, RejectsBrokenConfigs) {
  const std::set<std::string> declared = {"TOKEN"};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"([])", "JSON object"},
      {R"({"servers": {}})", "mcpServers must be an object"},
      {R"({"mcpServers": {}})", "exactly one server"},
      {R"({"mcpServers": {"a": {"command": "x", "args": [], "env": {}}, "b": {"url": "http://h", "headers": {}}}})",
       "exactly one server"},
      {R"({"mcpServers": {"a": {"command": "", "args": [], "env": {}}}})", "command must be a non-empty string"},
      {R"({"mcpServers": {"a": {"command": "x", "args": "y", "env": {}}}})", "args must be an array"},
      {R"({"mcpServers": {"a": {"command": "x", "args": [1], "env": {}}}})", "args[0] must be a string"},
      {R"({"mcpServers": {"a": {"command": "x", "args": []}}})", "env is missing"},
      {R"({"mcpServers": {"a": {"command": "x", "args": [], "env": {"K": 1}}}})", "env.K must be a string"},
      {R"({"mcpServers": {"a": {"command": "x", "args": [], "env": {"1K": "v"}}}})", "not a variable name"},
      {R"({"mcpServers": {"a": {"command": "x", "args": [], "env": {"K": "${OTHER}"}}}})", "not in the entry's"},
      {R"({"mcpServers": {"a": {"command": "x", "args": [], "env": {"K": "${TOKEN"}}}})", "malformed reference"},
      {R"({"mcpServers": {"a": {"command": "x", "args": ["--t=${TOKEN}"], "env": {}}}})", "expands variables only"},
      {R"({"mcpServers": {"a": {"command": "x", "args": [], "env": {}, "cwd": "/"}}})", "unexpected key \"cwd\""},
      {R"({"mcpServers": {"a": {"url": "ftp://h/mcp", "headers": {}}}})", "http:// or https://"},
      {R"({"mcpServers": {"a": {"url": "http://h/mcp"}}})", "headers is missing"},
      {R"({"mcpServers": {"a": {"url": "http://h/mcp", "headers": {"X": ["v"]}}}})", "headers.X must be a string"},
      {R"({"mcpServers": {"a": {"url": "http://h/mcp", "headers": {}, "command": "x"}}})", "unexpected key"},
  };
  for (const auto& [text, reason] : cases) {
    const auto problems = check_mcp_servers_config(json::parse(text), declared);
    const std::string all = joined(problems);
    EXPECT_NE(all.find(reason), std::string::npos) << "config " << text << "\nexpected: " << reason << "\ngot:" << all;
  }
}

TEST(ServersMcpConfigCheck, AcceptsStdioAndHttpConfigs) {
  const std::set<std::string> declared = {"TOKEN"};
  const auto stdio = json::parse(R"({"mcpServers": {"fs": {"command": "npx", "args": ["-y", "pkg", "/tmp"],
                                     "env": {"API_KEY": "${TOKEN}", "MODE": "plain"}}}})");
  const auto http = json::parse(R"({"mcpServers": {"remote": {"url": "https://example.test/mcp",
                                    "headers": {"Authorization": "Bearer ${TOKEN}"}}}})");
  EXPECT_TRUE(check_mcp_servers_config(stdio, declared).empty()) << joined(check_mcp_servers_config(stdio, declared));
  EXPECT_TRUE(check_mcp_servers_config(http, declared).empty()) << joined(check_mcp_servers_config(http, declared));
}

TEST(ServersMcpConfigCheck, FindsVariableReferences) {
  std::vector<std::string> malformed;
  EXPECT_EQ(referenced_vars("Bearer ${A_1} and ${B}", &malformed), (std::vector<std::string>{"A_1", "B"}));
  EXPECT_TRUE(malformed.empty());
  EXPECT_TRUE(referenced_vars("${} ${9X} ${OPEN", &malformed).empty());
  EXPECT_EQ(malformed, (std::vector<std::string>{"${}", "${9X}", "${OPEN"}));
}

// Entry-level rules bite too: a catalog entry whose snippet disagrees with it,
// or that writes a secret out, is reported.
TEST(ServersCatalogEntryCheck, ReportsAnEntryThatDisagreesWithItsSnippet) {
  auto entry = json::parse(R"({
    "name": "demo", "category": "archived", "status": "active", "description": "d",
    "homepage": "https://github.com/o/r", "language": "typescript", "transport": "stdio",
    "command": "npx", "args": ["-y", "demo-pkg"],
    "required_env": [{"name": "TOKEN", "description": "t", "secret": true}],
    "optional_env": [{"name": "PASSWORD", "description": "p", "secret": true}],
    "package": {"registry": "npm", "name": "other-pkg", "checked": "c"},
    "install": "npx -y demo-pkg", "notes": ["n"],
    "config": {"mcpServers": {"demo": {"command": "npx", "args": ["-y", "demo-pkg", "x"],
                                       "env": {"PASSWORD": "hunter2"}}}}
  })");
  const std::string all = joined(check_catalog_entry(entry));
  for (const char* reason : {"status archived", "install does not mention the package other-pkg",
                             "args differ from config's args", "must start as npx -y other-pkg",
                             "required variable TOKEN is not referenced", "secret PASSWORD is written literally"}) {
    EXPECT_NE(all.find(reason), std::string::npos) << "expected: " << reason << "\ngot:" << all;
  }
}

}  // namespace
}  // namespace harness::servers_test
