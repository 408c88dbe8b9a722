// The dashboard's routes through the real router and dispatcher: the files of
// ui/ as built into this binary, their types and security headers, caching
// by ETag, the redirects, and that every file the pages load is there.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "http/run_dispatch.hpp"
#include "ui_assets.hpp"

namespace harness::http {
namespace {

using json = nlohmann::json;

class UiRoutes : public ::testing::Test {
 protected:
  http_response send(const std::string& target, const std::string& if_none_match = {}) {
    auto request = make_request("GET", target);
    if (!if_none_match.empty()) request.headers.emplace_back("If-None-Match", if_none_match);
    return run_dispatch(router_, svc_, request);
  }
  std::set<std::string> embedded() const {
    std::set<std::string> out;
    for (const auto& asset : embedded_ui_assets()) out.insert(std::string(asset.path));
    return out;
  }

  services svc_{core::real_clock()};
  router router_ = make_api_router();
};

TEST_F(UiRoutes, TheStartPageComesWithAStrictContentSecurityPolicy) {
  auto r = send("/ui/");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(r.header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(r.body.find("<script type=\"module\" src=\"js/app.js\">"), std::string::npos);
  auto csp = std::string(r.header("Content-Security-Policy").value_or(""));
  EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("connect-src 'self'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << csp;
  EXPECT_EQ(csp.find("unsafe"), std::string::npos) << csp;
  EXPECT_EQ(r.header("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(r.header("Referrer-Policy"), "no-referrer");
}

TEST_F(UiRoutes, EachFileHasItsTypeAndAnETagThatMakesARevalidationA304) {
  const std::map<std::string, std::string> types{{"/ui/js/app.js", "text/javascript; charset=utf-8"},
                                                 {"/ui/app.css", "text/css; charset=utf-8"},
                                                 {"/ui/favicon.svg", "image/svg+xml"}};
  for (const auto& [target, type] : types) {
    SCOPED_TRACE(target);
    auto r = send(target);
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_EQ(r.header("Content-Type"), type);
    EXPECT_EQ(r.header("Cache-Control"), "no-cache");
    auto etag = std::string(r.header("ETag").value_or(""));
    ASSERT_FALSE(etag.empty());
    auto again = send(target, etag);
    EXPECT_EQ(again.status, 304u);
    EXPECT_TRUE(again.body.empty());
    EXPECT_EQ(send(target, "\"stale\"").status, 200u);
  }
  EXPECT_NE(send("/ui/js/app.js").header("ETag"), send("/ui/app.css").header("ETag"));
}

TEST_F(UiRoutes, EveryEmbeddedFileHasAKnownType) {
  ASSERT_FALSE(embedded().empty());
  for (const auto& path : embedded()) {
    SCOPED_TRACE(path);
    auto r = send("/ui/" + path);
    ASSERT_EQ(r.status, 200u);
    EXPECT_NE(r.header("Content-Type"), "application/octet-stream");
  }
}

TEST_F(UiRoutes, AnythingElseIsA404ThatSaysWhereTheDashboardIs) {
  for (const char* target :
       {"/ui/nope.js", "/ui/../CMakeLists.txt", "/ui/js/../../src/main.cpp", "/ui/js", "/ui/%2e%2e/README.md"}) {
    SCOPED_TRACE(target);
    auto r = send(target);
    ASSERT_EQ(r.status, 404u) << r.body;
    auto error = json::parse(r.body)["error"];
    EXPECT_EQ(error["code"], "not_found");
    EXPECT_NE(error["message"].get<std::string>().find("/ui/"), std::string::npos);
  }
}

TEST_F(UiRoutes, TheRootAndUiWithoutASlashRedirectToTheStartPage) {
  for (const char* target : {"/", "/ui"}) {
    auto r = send(target);
    EXPECT_EQ(r.status, 308u) << target;
    EXPECT_EQ(r.header("Location"), "/ui/") << target;
  }
}

// Every script, stylesheet and module import the pages name is built in: a
// renamed file cannot leave the dashboard loading a 404.
TEST_F(UiRoutes, EveryFileThePagesLoadIsBuiltIn) {
  const auto files = embedded();
  const std::regex html_ref(R"re((?:src|href)="([^"#:]+)")re");
  const std::regex import_ref(R"re(from '(\.[^']+)')re");
  int checked = 0;
  for (const auto& asset : embedded_ui_assets()) {
    std::string path(asset.path), body(asset.body);
    const bool html = path.ends_with(".html");
    if (!html && !path.ends_with(".js")) continue;
    const auto dir = path.find('/') == std::string::npos ? std::string() : path.substr(0, path.rfind('/') + 1);
    const auto& pattern = html ? html_ref : import_ref;
    for (std::sregex_iterator it(body.begin(), body.end(), pattern), end; it != end; ++it) {
      std::string ref = (*it)[1];
      std::string resolved = dir + ref;
      // Resolve ./ and ../ the way a browser does against the file's folder.
      std::vector<std::string> parts;
      std::stringstream segments(resolved);
      for (std::string part; std::getline(segments, part, '/');) {
        if (part == "." || part.empty()) continue;
        if (part == "..") {
          if (!parts.empty()) parts.pop_back();
          continue;
        }
        parts.push_back(part);
      }
      std::string joined;
      for (const auto& part : parts) joined += (joined.empty() ? "" : "/") + part;
      EXPECT_TRUE(files.contains(joined)) << path << " loads " << ref << " (" << joined << "), which is not built in";
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);
}

TEST_F(UiRoutes, TheOpenCallerIsToldTheServerRunsOpen) {
  auto r = send("/me");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(json::parse(r.body), json::parse(R"({"auth":"open","keyId":null,"label":"","users":[],"admin":true})"));
  EXPECT_EQ(r.header("Cache-Control"), "no-store");
}

}  // namespace
}  // namespace harness::http
