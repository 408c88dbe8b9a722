#include <gtest/gtest.h>

#include "harness/net/errors.hpp"
#include "harness/net/url.hpp"

namespace harness::net {
namespace {

TEST(Url, ParsesAndNormalisesTheParts) {
  auto u = parse_url("HTTPS://Example.COM:443/a/b?x=1#frag");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->scheme, "https");
  EXPECT_EQ(u->host, "example.com");
  EXPECT_EQ(u->port, "");
  EXPECT_EQ(u->path, "/a/b");
  EXPECT_EQ(u->query, "x=1");
  EXPECT_EQ(origin_of(*u), "https://example.com");
  EXPECT_EQ(to_string(*u), "https://example.com/a/b?x=1");
  auto local = parse_url("http://127.0.0.1:8080");
  ASSERT_TRUE(local);
  EXPECT_EQ(local->path, "/");
  EXPECT_EQ(origin_of(*local), "http://127.0.0.1:8080");
  auto v6 = parse_url("http://[::1]:9/mcp");
  ASSERT_TRUE(v6);
  EXPECT_EQ(origin_of(*v6), "http://[::1]:9");
}

TEST(Url, RefusesWhatIsNotAnHttpUrl) {
  for (const char* bad : {"ftp://x/y", "not a url", "/relative", "https://user:pw@host/"}) {
    auto u = parse_url(bad);
    ASSERT_FALSE(u) << bad;
    EXPECT_EQ(u.error().code, net::errc::bad_url);
    EXPECT_EQ(u.error().message.find("pw"), std::string::npos);
  }
}

TEST(Url, WellKnownLocationsGoBetweenHostAndPath) {
  auto u = parse_url("https://as.example.com/tenant1/");
  ASSERT_TRUE(u);
  EXPECT_EQ(well_known_url(*u, "oauth-authorization-server", true),
            "https://as.example.com/.well-known/oauth-authorization-server/tenant1");
  EXPECT_EQ(well_known_url(*u, "oauth-authorization-server", false),
            "https://as.example.com/.well-known/oauth-authorization-server");
  auto root = parse_url("https://as.example.com");
  ASSERT_TRUE(root);
  EXPECT_EQ(well_known_url(*root, "openid-configuration", true),
            "https://as.example.com/.well-known/openid-configuration");
}

TEST(Url, ResolvesReferences) {
  EXPECT_EQ(resolve_url("https://h/a/b", "/c").value(), "https://h/c");
  EXPECT_EQ(resolve_url("https://h/a/b", "c?d=1").value(), "https://h/a/c?d=1");
  EXPECT_EQ(resolve_url("https://h/a/b", "http://other/x").value(), "http://other/x");
}

TEST(Url, FormEncodingRoundTrips) {
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"grant_type", "authorization_code"},
      {"redirect_uri", "http://127.0.0.1:3000/oauth/callback?a=b&c"},
      {"scope", "mcp:read mcp:write"},
      {"empty", ""},
      {"utf8", "caf\xc3\xa9"}};
  const auto text = form_encode(fields);
  EXPECT_EQ(text.find(' '), std::string::npos);
  EXPECT_NE(text.find("scope=mcp%3Aread%20mcp%3Awrite"), std::string::npos);
  EXPECT_EQ(form_decode(text), fields);
  EXPECT_EQ(form_decode("a=1+2&b=%zz&c"),
            (std::vector<std::pair<std::string, std::string>>{{"a", "1 2"}, {"b", "%zz"}, {"c", ""}}));
}

}  // namespace
}  // namespace harness::net
