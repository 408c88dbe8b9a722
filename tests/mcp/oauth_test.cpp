// The pure parts of OAuth: WWW-Authenticate, where discovery looks, which
// metadata may speak for a server, PKCE, the choice of client
// authentication, and the "oauth" block of an mcpServers entry. The flows
// themselves run against the conformance suite's servers and in
// oauth_e2e_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/mcp/config.hpp"
#include "harness/mcp/errors.hpp"
#include "oauth_challenge.hpp"
#include "oauth_metadata.hpp"
#include "oauth_token_endpoint.hpp"

namespace harness::mcp {
namespace {

env_lookup vars(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

TEST(WwwAuthenticate, ReadsBearerParametersQuotedOrNot) {
  auto challenges = parse_www_authenticate(
      {R"(Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", error_description="needs \"write\", really")"});
  ASSERT_EQ(challenges.size(), 1u);
  EXPECT_EQ(challenges[0].scheme, "bearer");
  EXPECT_EQ(challenges[0].param("error"), "insufficient_scope");
  EXPECT_EQ(challenges[0].param("scope"), "mcp:basic mcp:write");
  EXPECT_EQ(challenges[0].param("resource_metadata"), "https://h/.well-known/oauth-protected-resource/mcp");
  EXPECT_EQ(challenges[0].param("error_description"), "needs \"write\", really");
  EXPECT_FALSE(challenges[0].param("realm"));
}

TEST(WwwAuthenticate, SplitsSeveralChallengesAndHeaders) {
  auto challenges = parse_www_authenticate({"Basic realm=\"a\", BEARER Realm=x, scope=s1", "Negotiate abc==, Bearer"});
  ASSERT_EQ(challenges.size(), 4u);
  EXPECT_EQ(challenges[0].scheme, "basic");
  EXPECT_EQ(challenges[0].param("realm"), "a");
  EXPECT_EQ(challenges[1].scheme, "bearer");
  EXPECT_EQ(challenges[1].param("realm"), "x");
  EXPECT_EQ(challenges[1].param("scope"), "s1");
  EXPECT_EQ(challenges[2].scheme, "negotiate");
  EXPECT_EQ(challenges[2].token68, "abc==");
  EXPECT_EQ(challenges[3].scheme, "bearer");
  EXPECT_TRUE(challenges[3].params.empty());
  EXPECT_EQ(bearer_challenge(challenges)->param("realm"), "x");
}

TEST(WwwAuthenticate, SurvivesWhatAHostileServerMightSend) {
  for (const std::string& junk :
       std::vector<std::string>{"", ",,,", "=", "\"", "Bearer \"unterminated", "Bearer a=\"b", "@@@ Bearer x=1",
                                std::string(10000, '='), "Bearer ,,, scope=, =x"}) {
    auto challenges = parse_www_authenticate({junk});  // must return, whatever it finds
    for (const auto& c : challenges) EXPECT_FALSE(c.scheme.empty());
  }
  EXPECT_FALSE(bearer_challenge(parse_www_authenticate({"Basic realm=x"})));
}

TEST(WwwAuthenticate, ScopesSplitAndJoinOnSpaces) {
  EXPECT_EQ(split_scopes("  a  b c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_scopes("").empty());
  EXPECT_EQ(join_scopes({"a", "b"}), "a b");
}

TEST(OAuthDiscovery, ProtectedResourceMetadataIsLookedForWhereTheSpecSays) {
  auto server = net::parse_url("https://mcp.example.com/tenant/mcp").value();
  EXPECT_EQ(protected_resource_metadata_urls(server, std::nullopt),
            (std::vector<std::string>{"https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp",
                                      "https://mcp.example.com/.well-known/oauth-protected-resource"}));
  // The challenge's resource_metadata is used alone.
  EXPECT_EQ(protected_resource_metadata_urls(server, std::string("https://mcp.example.com/custom.json")),
            (std::vector<std::string>{"https://mcp.example.com/custom.json"}));
  auto root = net::parse_url("https://mcp.example.com").value();
  EXPECT_EQ(protected_resource_metadata_urls(root, std::nullopt),
            (std::vector<std::string>{"https://mcp.example.com/.well-known/oauth-protected-resource"}));
}

TEST(OAuthDiscovery, AuthorizationServerMetadataInTheSpecsOrder) {
  auto with_path = net::parse_url("https://auth.example.com/tenant1").value();
  EXPECT_EQ(authorization_server_metadata_urls(with_path),
            (std::vector<std::string>{"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                                      "https://auth.example.com/.well-known/openid-configuration/tenant1",
                                      "https://auth.example.com/tenant1/.well-known/openid-configuration"}));
  auto root = net::parse_url("https://auth.example.com/").value();
  EXPECT_EQ(authorization_server_metadata_urls(root),
            (std::vector<std::string>{"https://auth.example.com/.well-known/oauth-authorization-server",
                                      "https://auth.example.com/.well-known/openid-configuration"}));
}

TEST(OAuthDiscovery, MetadataMaySpeakOnlyForItsOwnResource) {
  auto server = net::parse_url("https://mcp.example.com/api/mcp").value();
  EXPECT_TRUE(resource_covers("https://mcp.example.com/api/mcp", server));
  EXPECT_TRUE(resource_covers("https://mcp.example.com/api", server));
  EXPECT_TRUE(resource_covers("https://mcp.example.com", server));
  EXPECT_TRUE(resource_covers("https://MCP.example.com:443/api/mcp/", server));
  EXPECT_FALSE(resource_covers("https://evil.example.com/api/mcp", server));
  EXPECT_FALSE(resource_covers("http://mcp.example.com/api/mcp", server));
  EXPECT_FALSE(resource_covers("https://mcp.example.com/ap", server));
  EXPECT_FALSE(resource_covers("https://mcp.example.com/api/mcp/other", server));
  EXPECT_FALSE(resource_covers("not a url", server));
}

TEST(OAuthDiscovery, OAuthNeverLowersTheServersOwnTransportSecurity) {
  auto tls = net::parse_url("https://mcp.example.com/mcp").value();
  auto plain = net::parse_url("http://127.0.0.1:8080/mcp").value();
  EXPECT_TRUE(acceptable_oauth_url("https://auth.example.com/token", tls));
  EXPECT_FALSE(acceptable_oauth_url("http://auth.example.com/token", tls));
  EXPECT_TRUE(acceptable_oauth_url("http://127.0.0.1:9000/token", plain));
  EXPECT_FALSE(acceptable_oauth_url("ftp://x/y", plain));
}

TEST(OAuthDiscovery, MetadataDocumentsNeedTheirKeyFields) {
  auto prm = parse_protected_resource_metadata(
      {{"resource", "https://h/mcp"}, {"authorization_servers", {"https://a"}}, {"scopes_supported", {"x", 1}}}, "u");
  ASSERT_TRUE(prm);
  EXPECT_EQ(prm->scopes_supported, (std::vector<std::string>{"x"}));
  EXPECT_FALSE(parse_protected_resource_metadata({{"authorization_servers", {"https://a"}}}, "u"));
  EXPECT_FALSE(parse_protected_resource_metadata("text", "u"));
  auto as = parse_authorization_server_metadata({{"issuer", "https://a"}, {"token_endpoint", "https://a/t"}}, "u");
  ASSERT_TRUE(as);
  EXPECT_EQ(as->token_endpoint_auth_methods_supported, (std::vector<std::string>{"client_secret_basic"}));
  EXPECT_FALSE(as->code_challenge_methods_supported);
  auto missing = parse_authorization_server_metadata({{"issuer", "https://a"}}, "https://a/meta?secret=1");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, mcp::errc::authorization_failed);
  EXPECT_EQ(missing.error().message.find("secret=1"), std::string::npos);
}

TEST(OAuthTokens, PkceFollowsRfc7636) {
  // RFC 7636, appendix B.
  EXPECT_EQ(pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  const auto a = random_token(), b = random_token();
  EXPECT_EQ(a.size(), 43u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"), std::string::npos);
}

TEST(OAuthTokens, ClientAuthenticationIsTheBestTheServerOffers) {
  authorization_server_metadata as;
  as.token_endpoint_auth_methods_supported = {"client_secret_post", "client_secret_basic"};
  EXPECT_EQ(choose_auth_method("", "secret", "", as), "client_secret_basic");
  as.token_endpoint_auth_methods_supported = {"client_secret_post"};
  EXPECT_EQ(choose_auth_method("", "secret", "", as), "client_secret_post");
  EXPECT_EQ(choose_auth_method("", "", "", as), "none");
  EXPECT_EQ(choose_auth_method("", "", "-----BEGIN PRIVATE KEY-----", as), "private_key_jwt");
  EXPECT_EQ(choose_auth_method("client_secret_basic", "secret", "", as), "client_secret_basic");
}

TEST(OAuthConfig, TheOauthBlockIsReadAndSecretsMustComeFromTheEnvironment) {
  auto env = vars({{"SECRET", "s3cret"}, {"ID", "client-1"}});
  auto servers = parse_mcp_servers(R"({"mcpServers": {"gh": {"url": "https://api.example.com/mcp",
      "oauth": {"clientId": "${ID}", "clientSecret": "${SECRET}", "scopes": ["repo", "read:org"],
                "grant": "client_credentials", "tokenEndpointAuthMethod": "client_secret_post"}}}})",
                                   "/cfg", env);
  ASSERT_TRUE(servers) << servers.error().describe();
  const auto& oauth = (*servers)[0].oauth;
  ASSERT_TRUE(oauth);
  EXPECT_EQ(oauth->client_id, "client-1");
  EXPECT_EQ(oauth->client_secret, "s3cret");
  EXPECT_EQ(oauth->scopes, (std::vector<std::string>{"repo", "read:org"}));
  EXPECT_EQ(oauth->grant, oauth_config::grant_type::client_credentials);
  EXPECT_TRUE(uses_oauth((*servers)[0]));

  auto literal = parse_mcp_servers(
      R"({"mcpServers": {"gh": {"url": "https://x/mcp", "oauth": {"clientId": "a", "clientSecret": "plain"}}}})", "/",
      env);
  ASSERT_FALSE(literal);
  EXPECT_NE(literal.error().message.find("mcpServers.gh.oauth.clientSecret"), std::string::npos);
  EXPECT_NE(literal.error().message.find("${VAR}"), std::string::npos);
  EXPECT_EQ(literal.error().message.find("plain"), std::string::npos);

  for (const char* bad :
       {R"({"clientId": "a", "grnat": "x"})", R"({"grant": "implicit"})", R"({"grant": "client_credentials"})",
        R"({"tokenEndpointAuthMethod": "magic"})", R"({"clientMetadataUrl": "http://insecure/doc.json"})",
        R"({"privateKeyFile": "/nonexistent"})", R"({"grant": "identity_assertion", "clientId": "a"})", R"("yes")"}) {
    auto parsed = parse_mcp_servers(
        std::string(R"({"mcpServers": {"gh": {"url": "https://x/mcp", "oauth": )") + bad + "}}}", "/", env);
    EXPECT_FALSE(parsed) << bad;
    if (!parsed) {
      EXPECT_EQ(parsed.error().code, mcp::errc::invalid_config);
    }
  }
  auto on_stdio = parse_mcp_servers(R"({"mcpServers": {"fs": {"command": "node", "oauth": {}}}})", "/", env);
  EXPECT_FALSE(on_stdio);
}

TEST(OAuthConfig, OAuthIsUsedUnlessTheServerHasItsOwnAuthorizationOrTurnsItOff) {
  auto env = vars({{"TOKEN", "t"}});
  auto servers = parse_mcp_servers(R"({"mcpServers": {
      "plain": {"url": "https://a/mcp"},
      "token": {"url": "https://b/mcp", "headers": {"authorization": "Bearer ${TOKEN}"}},
      "off": {"url": "https://c/mcp", "oauth": false},
      "local": {"command": "node"}}})",
                                   "/", env);
  ASSERT_TRUE(servers) << servers.error().describe();
  std::map<std::string, bool> uses;
  for (const auto& s : *servers) uses[s.name] = uses_oauth(s);
  EXPECT_EQ(uses, (std::map<std::string, bool>{{"plain", true}, {"token", false}, {"off", false}, {"local", false}}));
}

TEST(OAuthConfig, APrivateKeyMeansPrivateKeyJwt) {
  const auto dir = std::filesystem::temp_directory_path() / ("harness-oauth-key-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "key.pem") << "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n";
  auto servers = parse_mcp_servers(R"({"mcpServers": {"svc": {"url": "https://a/mcp", "oauth": {
      "clientId": "svc", "grant": "client_credentials", "privateKeyFile": ")" +
                                       (dir / "key.pem").string() + R"(", "signingAlgorithm": "ES256"}}}})",
                                   "/", vars({}));
  ASSERT_TRUE(servers) << servers.error().describe();
  EXPECT_EQ((*servers)[0].oauth->token_endpoint_auth_method, "private_key_jwt");
  EXPECT_NE((*servers)[0].oauth->private_key_pem.find("BEGIN PRIVATE KEY"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace harness::mcp
