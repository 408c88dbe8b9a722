#include <gtest/gtest.h>

#include "harness/execution/execution_settings.hpp"

namespace harness::execution {
namespace {

core::settings resolve(std::map<std::string, std::string> env) {
  auto specs = execution_setting_specs();
  core::setting_sources sources;
  sources.env = std::move(env);
  return core::settings::resolve(specs, sources).value();
}

TEST(ExecutionSettings, DefaultsSuitATwoCoreMachine) {
  auto s = load_execution_settings(resolve({}), std::chrono::milliseconds(30000));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->pool.size, 2u);
  EXPECT_EQ(s->service.exec_timeout.count(), 30000);
  EXPECT_EQ(s->service.idle_timeout.count(), 300000);
  EXPECT_EQ(s->service.limits.log_bytes, 65536u);
}

TEST(ExecutionSettings, InvalidValuesNameTheSetting) {
  auto bad = load_execution_settings(resolve({{"SANDBOX_POOL_SIZE", "-1"}}), std::chrono::milliseconds(1));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("SANDBOX_POOL_SIZE"), std::string::npos);
  auto idle = load_execution_settings(resolve({{"SANDBOX_IDLE_TIMEOUT_MS", "soon"}}), std::chrono::milliseconds(1));
  ASSERT_FALSE(idle);
  EXPECT_NE(idle.error().message.find("SANDBOX_IDLE_TIMEOUT_MS"), std::string::npos);
}

}  // namespace
}  // namespace harness::execution
