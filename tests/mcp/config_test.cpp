#include <gtest/gtest.h>

#include <fstream>

#include "harness/mcp/config.hpp"
#include "harness/mcp/errors.hpp"
#include "mcp_test_support.hpp"
#include "secret_fill.hpp"
#include "user_servers.hpp"

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
    EXPECT_EQ(server.scope, server_scope::user) << "each user has their own files and memory";
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

TEST(McpConfig, UserScopedServersKeepTheUserIdForEachInstance) {
  const std::string text = R"({"mcpServers": {
    "notes": {"scope": "user", "command": "node", "args": ["n.js", "${ROOT:-/data/${user.id}}"],
              "env": {"FILE": "/m/${user.id}.jsonl"}, "directories": ["/data/${user.id}"]},
    "api": {"scope": "user", "url": "http://127.0.0.1:9/u/${user.id}", "headers": {"X-User": "${user.id}"},
            "oauth": false},
    "shared": {"command": "node", "args": ["s.js"]}}})";
  auto servers = parse_mcp_servers(text, "/cfg", fake_env({}));
  ASSERT_TRUE(servers) << servers.error().describe();
  ASSERT_EQ(servers->size(), 3u);
  const auto& api = (*servers)[0];
  const auto& notes = (*servers)[1];
  EXPECT_EQ(api.scope, server_scope::user);
  EXPECT_EQ(api.url, "http://127.0.0.1:9/u/${user.id}");
  EXPECT_EQ(notes.args[1], "/data/${user.id}") << "the placeholder survives a default";
  EXPECT_EQ(notes.env.at("FILE"), "/m/${user.id}.jsonl");
  EXPECT_EQ(notes.directories, std::vector<std::string>{"/data/${user.id}"});
  EXPECT_EQ((*servers)[2].scope, server_scope::shared);

  auto alice = detail::for_user(notes, "alice");
  EXPECT_EQ(alice.args[1], "/data/alice");
  EXPECT_EQ(alice.env.at("FILE"), "/m/alice.jsonl");
  EXPECT_EQ(alice.directories, std::vector<std::string>{"/data/alice"});
  EXPECT_FALSE(alice.required);
  auto bob = detail::for_user(api, "bob");
  EXPECT_EQ(bob.url, "http://127.0.0.1:9/u/bob");
  EXPECT_EQ(bob.headers.at("X-User"), "bob");
}

TEST(McpConfig, RefusesTheUserIdWhereItCannotBeFilledIn) {
  struct bad_case {
    std::string entry, says;
  };
  const std::vector<bad_case> cases = {
      {R"({"command": "node", "args": ["/d/${user.id}"]})", "mcpServers.x.args[0]: ${user.id} needs"},
      {R"({"command": "node", "env": {"F": "${user.id}"}})", "mcpServers.x.env.F: ${user.id} needs"},
      {R"({"url": "http://127.0.0.1:9/${user.id}"})", "mcpServers.x.url: ${user.id} needs"},
      {R"({"scope": "user", "command": "${user.id}"})", "mcpServers.x.command: ${user.id} cannot choose"},
      {R"({"scope": "everyone", "command": "node"})", "mcpServers.x.scope: expected"},
      {R"({"scope": "user", "command": "node", "directories": "/d"})", "mcpServers.x.directories: expected an array"},
      {R"({"scope": "user", "url": "http://127.0.0.1:9/mcp", "oauth": {"grant": "client_credentials", "clientId": "c"}})",
       "a user-scoped server authorizes each user with authorization_code"},
  };
  for (const auto& c : cases) {
    auto parsed = parse_mcp_servers(R"({"mcpServers": {"x": )" + c.entry + "}}", "/cfg", fake_env({}));
    ASSERT_FALSE(parsed) << c.entry;
    EXPECT_NE(parsed.error().message.find(c.says), std::string::npos) << c.entry << " -> " << parsed.error().message;
  }
}

TEST(McpConfig, AUserScopedRemoteServerUsesOAuthPerUserAndItsInstanceKnowsItsUser) {
  auto servers = parse_mcp_servers(R"({"mcpServers": {"notes": {"scope": "user", "url": "http://127.0.0.1:9/mcp"}}})",
                                   "/cfg", fake_env({}));
  ASSERT_TRUE(servers) << servers.error().describe();
  const auto& notes = servers->at(0);
  EXPECT_TRUE(uses_oauth(notes));
  EXPECT_EQ(notes.user, "");
  EXPECT_EQ(detail::for_user(notes, "alice").user, "alice");
}

TEST(McpConfig, UsersSecretsAreKeptAsWrittenWhereAUsersInstanceFillsThemIn) {
  const std::string text = R"({"mcpServers": {
    "gh": {"scope": "user", "command": "node", "args": ["gh.js", "--token=${secret:GH_TOKEN}"],
           "env": {"GITHUB_TOKEN": "${secret:GH_TOKEN}", "OTHER": "${secret:Other_2}"}},
    "api": {"scope": "user", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${secret:API}"}}}})";
  auto servers = parse_mcp_servers(text, "/cfg", fake_env({}));
  ASSERT_TRUE(servers) << servers.error().describe();
  const auto& api = (*servers)[0];
  const auto& gh = (*servers)[1];
  EXPECT_EQ(gh.env.at("GITHUB_TOKEN"), "${secret:GH_TOKEN}");
  EXPECT_EQ(api.headers.at("Authorization"), "Bearer ${secret:API}");
  EXPECT_TRUE(api.oauth_disabled || !uses_oauth(api)) << "an Authorization header means no OAuth";
  EXPECT_EQ(detail::secret_names(gh).value(), (std::vector<std::string>{"GH_TOKEN", "Other_2"}));

  auto missing = detail::fill_secrets(gh, {{"GH_TOKEN", "ghp_0123456789"}}, "alice");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, mcp::errc::secret_missing);
  EXPECT_NE(missing.error().message.find("Other_2"), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().hint.find("secrets set --user alice Other_2"), std::string::npos) << missing.error().hint;
  auto filled = detail::fill_secrets(gh, {{"GH_TOKEN", "ghp_0123456789"}, {"Other_2", "${secret:GH_TOKEN}x"}}, "a");
  ASSERT_TRUE(filled) << filled.error().describe();
  EXPECT_EQ(filled->args[1], "--token=ghp_0123456789");
  EXPECT_EQ(filled->env.at("GITHUB_TOKEN"), "ghp_0123456789");
  EXPECT_EQ(filled->env.at("OTHER"), "${secret:GH_TOKEN}x") << "a value is not read for references again";
}

TEST(McpConfig, RefusesSecretsWhereTheyCouldLeaveTheUsersInstance) {
  struct bad_case {
    std::string entry, says;
  };
  const std::vector<bad_case> cases = {
      {R"({"command": "node", "env": {"T": "${secret:T}"}})", "mcpServers.x.env.T: ${secret:NAME} needs"},
      {R"({"url": "http://127.0.0.1:9/mcp", "headers": {"A": "${secret:T}"}})", "mcpServers.x.headers.A: ${secret"},
      {R"({"scope": "user", "command": "${secret:T}"})", "mcpServers.x.command: ${secret:NAME} can only"},
      {R"({"scope": "user", "url": "http://127.0.0.1:9/${secret:T}", "oauth": false})", "mcpServers.x.url: ${secret"},
      {R"({"scope": "user", "command": "node", "cwd": "/d/${secret:T}"})", "mcpServers.x.cwd: ${secret"},
      {R"({"scope": "user", "command": "node", "env": {"T": "${secret:9T}"}})", "invalid secret name '9T'"},
      {R"({"scope": "user", "command": "node", "env": {"T": "${secret:}"}})", "invalid secret name ''"},
  };
  for (const auto& c : cases) {
    auto parsed = parse_mcp_servers(R"({"mcpServers": {"x": )" + c.entry + "}}", "/cfg", fake_env({}));
    ASSERT_FALSE(parsed) << c.entry;
    EXPECT_NE(parsed.error().message.find(c.says), std::string::npos) << c.entry << " -> " << parsed.error().message;
  }
}

TEST(SecretMask, ValuesBecomeTokensOnTheWayOutAndTokensValuesOnTheWayIn) {
  // "quo\"te" is how the second value looks inside JSON text (a tool's text content).
  detail::secret_mask mask({{"A_TOKEN", "sk-live-123456"}, {"B", "quo\"te-abcdef"}, {"C", "sk-live-123456-long"}});
  EXPECT_EQ(mask.censor(std::string("key sk-live-123456 and sk-live-123456-long")), "key [SECRET_1] and [SECRET_3]")
      << "a value containing another is replaced whole";
  EXPECT_EQ(mask.censor(std::string(R"({"B": "quo\"te-abcdef"})")), R"({"B": "[SECRET_2]"})");
  auto censored = mask.censor(
      nlohmann::json{{"content", {{{"type", "text"}, {"text", "tok=sk-live-123456"}}}}, {"sk-live-123456", 1}});
  EXPECT_EQ(censored.dump().find("sk-live"), std::string::npos) << censored.dump();
  EXPECT_EQ(censored["content"][0]["text"], "tok=[SECRET_1]");
  EXPECT_TRUE(censored.contains("[SECRET_1]")) << "keys too";
  auto e = mask.censor(make_error(mcp::errc::tool_error, "bad token sk-live-123456", "retry sk-live-123456"));
  EXPECT_EQ(e.message, "bad token [SECRET_1]");
  EXPECT_EQ(e.hint, "retry [SECRET_1]");

  auto restored = mask.restore(nlohmann::json{{"auth", "Bearer [SECRET_1]"}, {"n", 5}, {"list", {"[SECRET_2]"}}});
  EXPECT_EQ(restored["auth"], "Bearer sk-live-123456");
  EXPECT_EQ(restored["list"][0], "quo\"te-abcdef");
  EXPECT_EQ(restored["n"], 5);
  EXPECT_EQ(mask.restore(nlohmann::json{{"x", "[SECRET_9] [PHONE_1]"}})["x"], "[SECRET_9] [PHONE_1]");
}

TEST(McpConfig, UserServerLimitsAreSettings) {
  core::setting_sources sources;
  sources.env["MCP_CONFIG"] = testing::source_dir() + "/servers/mcp.json";
  sources.env["MCP_USER_SERVER_IDLE_MS"] = "1500";
  sources.env["MCP_MAX_USER_SERVERS"] = "3";
  auto settings = core::settings::resolve(mcp_setting_specs(), sources);
  ASSERT_TRUE(settings);
  auto config = load_mcp_config(*settings, fake_env({}));
  ASSERT_TRUE(config) << config.error().describe();
  EXPECT_EQ(config->user_servers.idle, std::chrono::milliseconds(1500));
  EXPECT_EQ(config->user_servers.max_instances, 3u);
  sources.env["MCP_MAX_USER_SERVERS"] = "0";
  auto zero = core::settings::resolve(mcp_setting_specs(), sources);
  ASSERT_TRUE(zero);
  EXPECT_FALSE(load_mcp_config(*zero, fake_env({})));
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
