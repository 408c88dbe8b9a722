#include <gtest/gtest.h>

#include "harness/llm/config.hpp"
#include "harness/llm/health.hpp"

namespace harness::llm {
namespace {

result<llm_config> load(std::map<std::string, std::string> env) {
  auto specs = llm_setting_specs();
  harness::core::setting_sources sources;
  sources.env = std::move(env);
  auto s = harness::core::settings::resolve(specs, sources);
  if (!s) return s.error();
  return load_llm_config(*s);
}

TEST(LlmConfig, DefaultsAreOpenAiWithVersionedBase) {
  auto c = load({});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->provider, "openai");
  EXPECT_EQ(c->model, "gpt-4o-mini");
  EXPECT_EQ(endpoint_url(*c), "https://api.openai.com/v1/chat/completions");
  EXPECT_EQ(c->tools, tool_mode::automatic);
  EXPECT_FALSE(c->temperature);
}

TEST(LlmConfig, BaseUrlMeansWhatEachSdkMeans) {
  auto openai = load({{"LLM_BASE_URL", "http://localhost:11434/v1/"}});
  ASSERT_TRUE(openai);
  EXPECT_EQ(endpoint_url(*openai), "http://localhost:11434/v1/chat/completions");
  auto anthropic = load({{"LLM_PROVIDER", "anthropic"}});
  ASSERT_TRUE(anthropic);
  EXPECT_EQ(endpoint_url(*anthropic), "https://api.anthropic.com/v1/messages");
  auto custom = load({{"LLM_PROVIDER", "anthropic"}, {"LLM_BASE_URL", "http://127.0.0.1:9999"}});
  ASSERT_TRUE(custom);
  EXPECT_EQ(endpoint_url(*custom), "http://127.0.0.1:9999/v1/messages");
}

TEST(LlmConfig, RejectsBadUrlsWithoutEchoingCredentials) {
  auto creds = load({{"LLM_BASE_URL", "https://user:sk-hidden@api.example/v1"}});
  ASSERT_FALSE(creds);
  EXPECT_EQ(creds.error().message.find("sk-hidden"), std::string::npos);
  EXPECT_FALSE(load({{"LLM_BASE_URL", "ftp://x/v1"}}));
  EXPECT_FALSE(load({{"LLM_BASE_URL", "http://x/v1?key=1"}}));
  EXPECT_FALSE(load({{"LLM_BASE_URL", "http:///v1"}}));
}

TEST(LlmConfig, ValidatesNumbersChoicesAndCombinations) {
  EXPECT_FALSE(load({{"LLM_PROVIDER", "gemini"}}));
  EXPECT_FALSE(load({{"LLM_TEMPERATURE", "3"}}));
  EXPECT_FALSE(load({{"LLM_TEMPERATURE", "warm"}}));
  EXPECT_FALSE(load({{"LLM_TOOL_MODE", "maybe"}}));
  EXPECT_FALSE(load({{"LLM_TIMEOUT_MS", "-1"}}));
  EXPECT_FALSE(load({{"LLM_PROVIDER", "anthropic"}, {"LLM_MAX_TOKENS", "0"}}));
  auto replay = load({{"LLM_PROVIDER", "replay"}});
  ASSERT_FALSE(replay);
  EXPECT_NE(replay.error().message.find("LLM_REPLAY_FILE"), std::string::npos);
  auto ok = load({{"LLM_TEMPERATURE", "0.2"}, {"LLM_TOOL_MODE", "text"}, {"LLM_MAX_RETRIES", "0"}});
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_DOUBLE_EQ(*ok->temperature, 0.2);
  EXPECT_EQ(ok->tools, tool_mode::text);
  EXPECT_EQ(ok->retry.max_retries, 0);
}

TEST(LlmConfig, KeyIsASecretSettingAndNeverInHealth) {
  bool found = false;
  for (const auto& spec : llm_setting_specs()) {
    if (spec.name == "LLM_API_KEY") found = spec.secret;
  }
  EXPECT_TRUE(found);
  auto c = load({{"LLM_API_KEY", "sk-very-secret-key"}, {"LLM_MODEL", "gpt-x"}});
  ASSERT_TRUE(c);
  auto health = create_llm_health_source(*c);
  EXPECT_EQ(health->name(), "llm");
  auto h = health->check();
  EXPECT_TRUE(h.up);
  EXPECT_FALSE(h.required);
  EXPECT_EQ(h.detail["keySet"], true);
  EXPECT_EQ(h.detail["model"], "gpt-x");
  EXPECT_EQ(h.detail["provider"], "openai");
  EXPECT_EQ(h.detail.dump().find("sk-very-secret-key"), std::string::npos);
  auto none = load({});
  ASSERT_TRUE(none);
  EXPECT_EQ(create_llm_health_source(*none)->check().detail["keySet"], false);
}

TEST(LlmConfig, HealthOfAnLlmThatIsNotConfiguredSaysSoAndNamesTheSettings) {
  auto none = load({});
  ASSERT_TRUE(none);
  auto h = create_llm_health_source(*none, "no LLM is configured: set LLM_API_KEY")->check();
  EXPECT_FALSE(h.configured);
  EXPECT_FALSE(h.required);
  EXPECT_EQ(h.detail["reason"], "no LLM is configured: set LLM_API_KEY");
  EXPECT_EQ(h.detail["settings"], nlohmann::json({"LLM_API_KEY", "LLM_BASE_URL", "LLM_PROVIDER"}));
  // Nothing that reads as a live provider: no default base URL, model or key flag.
  EXPECT_FALSE(h.detail.contains("baseUrl"));
  EXPECT_FALSE(h.detail.contains("model"));
  EXPECT_FALSE(h.detail.contains("keySet"));
}

}  // namespace
}  // namespace harness::llm
