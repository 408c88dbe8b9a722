#include <gtest/gtest.h>

#include <fstream>

#include "harness/mcp/config.hpp"
#include "mcp_test_support.hpp"

namespace harness::mcp {
namespace {

env_lookup fake_env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(McpConfig, ExpandsVariablesWithDefaultsAndNesting) {
  auto env = fake_env({{"TOKEN", "abc"}, {"EMPTY", ""}, {"DIR", "/d"}});
  EXPECT_EQ(*expand_variables("Bearer ${TOKEN}", env), "Bearer abc");
  EXPECT_EQ(*expand_variables("${MISSING:-fallback}", env), "fallback");
  EXPECT_EQ(*expand_variables("${EMPTY:-x}", env), "x");
  EXPECT_EQ(*expand_variables("${MISSING:-${DIR}/w}", env), "/d/w");
  EXPECT_EQ(*expand_variables("no vars $HOME", env), "no vars $HOME");
  auto missing = expand_variables("${MISSING}", env);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("MISSING"), std::string::npos);
  EXPECT_FALSE(expand_variables("${UNTERMINATED", env));
}

TEST(McpConfig, ParsesStdioAndHttpServers) {
  const std::string text = R"({"mcpServers": {
    "fs": {"command": "node", "args": ["${MCP_CONFIG_DIR}/x.js", "${ROOT:-/tmp}"], "env": {"K": "${TOKEN}"}},
    "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "required": false},
    "off": {"command": "nothing", "disabled": true}}})";
  auto servers = parse_mcp_servers(text, "/cfg", fake_env({{"TOKEN", "t0k"}}));
  ASSERT_TRUE(servers) << servers.error().message;
  ASSERT_EQ(servers->size(), 2u);
  const auto& fs = (*servers)[0];
  EXPECT_EQ(fs.name, "fs");
  EXPECT_EQ(fs.kind, transport_kind::stdio);
  EXPECT_EQ(fs.args, (std::vector<std::string>{"/cfg/x.js", "/tmp"}));
  EXPECT_EQ(fs.env.at("K"), "t0k");
  const auto& remote = (*servers)[1];
  EXPECT_EQ(remote.kind, transport_kind::http);
  EXPECT_EQ(remote.headers.at("Authorization"), "Bearer t0k");
  EXPECT_FALSE(remote.required);
}

TEST(McpConfig, RejectsBadEntriesWithTheirPath) {
  auto env = fake_env({});
  auto expect_error = [&](const std::string& text, const std::string& needle) {
    auto servers = parse_mcp_servers(text, "/cfg", env);
    ASSERT_FALSE(servers) << text;
    EXPECT_NE(servers.error().message.find(needle), std::string::npos) << servers.error().message;
  };
  expect_error("not json", "not valid JSON");
  // A file nested past the depth limit is refused while it is read, with the reason.
  expect_error(R"({"mcpServers": )" + std::string(100000, '[') + std::string(100000, ']') + "}",
               "nests deeper than 256 levels");
  expect_error(R"({"servers": {}})", "mcpServers");
  expect_error(R"({"mcpServers": {"a__b": {"command": "x"}}})", "invalid server name");
  expect_error(R"({"mcpServers": {"a": {"command": "x", "url": "http://h/"}}})", "exactly one");
  expect_error(R"({"mcpServers": {"a": {"command": "x", "args": [1]}}})", "mcpServers.a.args[0]");
  expect_error(R"({"mcpServers": {"a": {"url": "ftp://h/"}}})", "mcpServers.a.url");
  expect_error(R"({"mcpServers": {"a": {"url": "https://user:pw@h/"}}})", "credentials");
  expect_error(R"({"mcpServers": {"a": {"command": "x", "env": {"K": "${NOPE}"}}}})", "NOPE");
}

TEST(McpConfig, DefaultConfigFileLoads) {
  auto specs = mcp_setting_specs();
  core::setting_sources sources;
  sources.env["MCP_CONFIG"] = testing::source_dir() + "/servers/mcp.json";
  auto settings = core::settings::resolve(specs, sources);
  ASSERT_TRUE(settings);
  auto config = load_mcp_config(*settings, fake_env({}));
  ASSERT_TRUE(config) << config.error().describe();
  ASSERT_EQ(config->servers.size(), 2u);
  for (const auto& server : config->servers) {
    EXPECT_EQ(server.command, "node");
    ASSERT_FALSE(server.args.empty());
    EXPECT_TRUE(std::filesystem::path(server.args[0]).is_absolute()) << server.args[0];
  }
  EXPECT_EQ(config->limits.request_timeout, std::chrono::milliseconds(30000));
  EXPECT_EQ(config->limits.max_tools_per_server, 1000u);
}

TEST(McpConfig, ToolsPerServerLimitIsASetting) {
  core::setting_sources sources;
  sources.env["MCP_CONFIG"] = testing::source_dir() + "/servers/mcp.json";
  sources.env["MCP_MAX_TOOLS_PER_SERVER"] = "50";
  auto settings = core::settings::resolve(mcp_setting_specs(), sources);
  ASSERT_TRUE(settings);
  auto config = load_mcp_config(*settings, fake_env({}));
  ASSERT_TRUE(config) << config.error().describe();
  EXPECT_EQ(config->limits.max_tools_per_server, 50u);

  sources.env["MCP_MAX_TOOLS_PER_SERVER"] = "0";
  auto zero = core::settings::resolve(mcp_setting_specs(), sources);
  ASSERT_TRUE(zero);
  auto refused = load_mcp_config(*zero, fake_env({}));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("MCP_MAX_TOOLS_PER_SERVER"), std::string::npos) << refused.error().message;
}

TEST(McpConfig, MissingFileIsAClearError) {
  auto specs = mcp_setting_specs();
  core::setting_sources sources;
  sources.env["MCP_CONFIG"] = "/nonexistent/mcp.json";
  auto settings = core::settings::resolve(specs, sources);
  ASSERT_TRUE(settings);
  auto config = load_mcp_config(*settings, fake_env({}));
  ASSERT_FALSE(config);
  EXPECT_NE(config.error().message.find("/nonexistent/mcp.json"), std::string::npos);
}

}  // namespace
}  // namespace harness::mcp
