#include <gtest/gtest.h>

#include "harness/core/settings.hpp"

namespace harness::core {
namespace {

const std::vector<setting_spec> specs = {
    {"PORT", "3000", "port to listen on"},
    {"LOG_FORMAT", "text", "text or json"},
    {"SANDBOX_MEMORY_MB", "512", "memory cap"},
    {"LLM_API_KEY", "", "key", true},
};

TEST(Settings, PrecedenceIsDefaultThenDotenvThenEnvThenFlags) {
  setting_sources sources;
  auto defaults = settings::resolve(specs, sources);
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->get("PORT"), "3000");
  EXPECT_FALSE(defaults->is_set_explicitly("PORT"));

  sources.dotenv_text = "PORT=4000\nLOG_FORMAT=json\nSANDBOX_MEMORY_MB=64\n";
  sources.env = {{"PORT", "5000"}, {"LOG_FORMAT", "text"}, {"UNRELATED", "x"}};
  sources.args = {"--port", "6000"};
  auto s = settings::resolve(specs, sources);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->get("PORT"), "6000");             // flag beats env and .env
  EXPECT_EQ(s->get("LOG_FORMAT"), "text");       // env beats .env
  EXPECT_EQ(s->get("SANDBOX_MEMORY_MB"), "64");  // .env beats default
  EXPECT_TRUE(s->is_set_explicitly("PORT"));
}

TEST(Settings, FlagsAcceptEqualsForm) {
  setting_sources sources;
  sources.args = {"--sandbox-memory-mb=128", "--log-format", "json"};
  auto s = settings::resolve(specs, sources);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->get("SANDBOX_MEMORY_MB"), "128");
  EXPECT_EQ(s->get("LOG_FORMAT"), "json");
}

TEST(Settings, UnknownFlagMissingValueAndStrayArgumentAreErrors) {
  setting_sources sources;
  sources.args = {"--no-such-thing", "1"};
  auto unknown = settings::resolve(specs, sources);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("--no-such-thing"), std::string::npos);

  sources.args = {"--port"};
  auto missing = settings::resolve(specs, sources);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("needs a value"), std::string::npos);

  sources.args = {"serve"};
  EXPECT_FALSE(settings::resolve(specs, sources));
}

TEST(Settings, TypedAccessorsNameTheSettingAndTheRule) {
  setting_sources sources;
  sources.env = {{"PORT", "70000"}, {"SANDBOX_MEMORY_MB", "12abc"}, {"LOG_FORMAT", "xml"}};
  auto s = settings::resolve(specs, sources);
  ASSERT_TRUE(s);
  auto port = s->get_int("PORT", 0, 65535);
  ASSERT_FALSE(port);
  EXPECT_EQ(port.error().message, "invalid PORT: '70000' is out of range (0..65535)");
  auto mem = s->get_int("SANDBOX_MEMORY_MB", 1, 1 << 20);
  ASSERT_FALSE(mem);
  EXPECT_EQ(mem.error().message, "invalid SANDBOX_MEMORY_MB: '12abc' is not a whole number");
  auto format = s->get_choice("LOG_FORMAT", {"text", "json"});
  ASSERT_FALSE(format);
  EXPECT_EQ(format.error().message, "invalid LOG_FORMAT: 'xml' is not one of: text, json");
}

TEST(Settings, BoolAndMilliseconds) {
  setting_sources sources;
  sources.env = {{"PORT", "yes"}, {"SANDBOX_MEMORY_MB", "250"}};
  auto s = settings::resolve(specs, sources);
  ASSERT_TRUE(s);
  EXPECT_TRUE(*s->get_bool("PORT"));
  EXPECT_FALSE(s->get_bool("LOG_FORMAT"));
  EXPECT_EQ(s->get_ms("SANDBOX_MEMORY_MB", 1, 1000)->count(), 250);
}

TEST(Settings, HelpListsEverySettingAndHidesSecrets) {
  auto text = help_text(specs, "usage: mcp-harness [flags]");
  for (const auto& spec : specs) {
    EXPECT_NE(text.find(spec.name), std::string::npos) << spec.name;
    EXPECT_NE(text.find(flag_name(spec.name)), std::string::npos) << spec.name;
  }
  EXPECT_NE(text.find("(secret, no default)"), std::string::npos);
}

TEST(Settings, DotenvErrorsStopResolution) {
  setting_sources sources;
  sources.dotenv_text = "this is not a setting\n";
  auto s = settings::resolve(specs, sources);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, harness::core::errc::invalid_dotenv);
}

}  // namespace
}  // namespace harness::core
