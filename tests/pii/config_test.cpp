#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "harness/pii/errors.hpp"
#include "harness/pii/pii_censor.hpp"
#include "harness/pii/pii_config.hpp"

namespace harness::pii {
namespace {

core::settings resolve(std::map<std::string, std::string> env) {
  core::setting_sources sources;
  sources.env = std::move(env);
  auto specs = pii_setting_specs();
  auto s = core::settings::resolve(specs, sources);
  EXPECT_TRUE(s);
  return *s;
}

TEST(PiiConfig, DefaultsEnableEveryBuiltIn) {
  auto cfg = load_pii_config(resolve({}));
  ASSERT_TRUE(cfg) << cfg.error().message;
  EXPECT_EQ(cfg->detectors.size(), 6u);
  EXPECT_TRUE(cfg->custom_patterns.empty());
}

TEST(PiiConfig, DetectorListAndNone) {
  auto cfg = load_pii_config(resolve({{"PII_DETECTORS", " email, card "}}));
  ASSERT_TRUE(cfg);
  EXPECT_EQ(cfg->detectors, (std::vector<std::string>{"email", "card"}));
  auto none = load_pii_config(resolve({{"PII_DETECTORS", "none"}}));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->detectors.empty());
  auto bad = load_pii_config(resolve({{"PII_DETECTORS", "email,passport"}}));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("passport"), std::string::npos);
}

TEST(PiiConfig, CustomPatternSyntaxes) {
  auto list = parse_custom_patterns(R"(custom_id=\bID-\d{6}\b; semi = a\x3Bb ;)");
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0], (std::pair<std::string, std::string>{"custom_id", R"(\bID-\d{6}\b)"}));
  EXPECT_EQ((*list)[1], (std::pair<std::string, std::string>{"semi", R"( a\x3Bb)"}));
  auto as_json = parse_custom_patterns(R"({"eq": "a=b;c"})");
  ASSERT_TRUE(as_json);
  EXPECT_EQ((*as_json)[0].second, "a=b;c");
  EXPECT_FALSE(parse_custom_patterns("no_equals_sign"));
  EXPECT_FALSE(parse_custom_patterns("{not json"));
  EXPECT_FALSE(parse_custom_patterns(R"({"n": 5})"));
}

TEST(PiiConfig, FileAndEnvPatternsReachTheCensor) {
  auto path = std::filesystem::temp_directory_path() / ("pii_patterns_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << R"({"employee": "\\bEMP\\d{5}\\b"})";
  auto cfg =
      load_pii_config(resolve({{"PII_PATTERNS_FILE", path.string()}, {"PII_CUSTOM_PATTERNS", "badge=B-\\d{4}"}}));
  std::filesystem::remove(path);
  ASSERT_TRUE(cfg) << cfg.error().message;
  auto builder = pii_censor_builder::from_config(*cfg);
  ASSERT_TRUE(builder);
  auto censor = builder->build();
  ASSERT_TRUE(censor);
  pii_vault vault;
  EXPECT_EQ(censor->tokenize("EMP12345 has B-1234", vault), "[EMPLOYEE_1] has [BADGE_1]");
}

TEST(PiiConfig, BadPatternFailsStartUpWithNameAndRe2Message) {
  auto cfg = load_pii_config(resolve({{"PII_CUSTOM_PATTERNS", "order_no=ORD-[0-9"}}));
  ASSERT_FALSE(cfg);
  EXPECT_EQ(cfg.error().code, harness::pii::errc::invalid_pattern);
  EXPECT_NE(cfg.error().message.find("'order_no'"), std::string::npos) << cfg.error().message;
  EXPECT_NE(cfg.error().message.find("missing ]"), std::string::npos) << cfg.error().message;
  auto missing = load_pii_config(resolve({{"PII_PATTERNS_FILE", "/nonexistent/patterns.json"}}));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("PII_PATTERNS_FILE"), std::string::npos);
}

}  // namespace
}  // namespace harness::pii
