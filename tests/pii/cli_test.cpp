#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/pii/pii_cli.hpp"
#include "harness/pii/pii_config.hpp"

namespace harness::pii {
namespace {

struct cli_run {
  int code;
  std::string out, err;
};

cli_run run(std::vector<std::string> args, std::string input, std::map<std::string, std::string> env = {}) {
  core::setting_sources sources;
  sources.env = std::move(env);
  auto specs = pii_setting_specs();
  auto s = core::settings::resolve(specs, sources);
  EXPECT_TRUE(s);
  std::istringstream in(input);
  std::ostringstream out, err;
  int code = run_pii_cli(args, *s, in, out, err);
  return {code, out.str(), err.str()};
}

TEST(PiiCli, TokenizesStdin) {
  auto r = run({"tokenize"}, "mail a@b.com, call 415-555-2671\n");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "mail [EMAIL_1], call [PHONE_1]\n");
}

TEST(PiiCli, JsonOutputHasByteOffsets) {
  std::string input = "caf\xc3\xa9 a@b.com";
  auto r = run({"tokenize", "--json"}, input);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["text"], "caf\xc3\xa9 [EMAIL_1]");
  ASSERT_EQ(j["detections"].size(), 1u);
  EXPECT_EQ(j["detections"][0], (nlohmann::json{{"kind", "email"}, {"start", 6}, {"end", 13}, {"token", "[EMAIL_1]"}}));
}

TEST(PiiCli, HonoursPatternSettings) {
  auto r = run({"tokenize"}, "ID-123456 a@b.com", {{"PII_CUSTOM_PATTERNS", R"(custom_id=\bID-\d{6}\b)"},
                                                  {"PII_DETECTORS", "none"}});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "[CUSTOM_ID_1] a@b.com");
}

TEST(PiiCli, InvalidUtf8InJsonModeDoesNotCrash) {
  auto r = run({"tokenize", "--json"}, std::string("\xff a@b.com", 9));
  ASSERT_EQ(r.code, 0);
  EXPECT_TRUE(nlohmann::json::accept(r.out));
}

TEST(PiiCli, UsageAndConfigErrors) {
  EXPECT_EQ(run({}, "").code, 2);
  EXPECT_EQ(run({"detect"}, "").code, 2);
  EXPECT_EQ(run({"tokenize", "--yaml"}, "").code, 2);
  auto help = run({"--help"}, "");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("tokenize"), std::string::npos);
  auto bad = run({"tokenize"}, "x", {{"PII_CUSTOM_PATTERNS", "broken=(("}});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("'broken'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace harness::pii
