// Which listed tools the registry takes: the MCP 2025-11-25 tool-name rules, one
// tool per name, at most the limit, and a report of everything left out.
#include <gtest/gtest.h>

#include "tool_list_filter.hpp"

namespace harness::mcp::detail {
namespace {

using nlohmann::json;

std::vector<json> named(const std::vector<json>& names) {
  std::vector<json> tools;
  for (const auto& name : names) tools.push_back({{"name", name}});
  return tools;
}

TEST(ToolNames, FollowTheSpecificationsRules) {
  for (const char* good : {"getUser", "DATA_EXPORT_v2", "admin.tools.list", "a", "x-y_z.0"}) {
    EXPECT_EQ(tool_name_problem(good), "") << good;
  }
  EXPECT_EQ(tool_name_problem(std::string(128, 'a')), "");
  EXPECT_EQ(tool_name_problem(std::string(129, 'a')), "name of 129 characters, over 128");
  EXPECT_EQ(tool_name_problem(""), "empty name");
  EXPECT_EQ(tool_name_problem("a/b"), "name has '/'; only A-Z a-z 0-9 _ - . are allowed");
  EXPECT_EQ(tool_name_problem("a,b"), "name has ','; only A-Z a-z 0-9 _ - . are allowed");
  EXPECT_EQ(tool_name_problem("tab\there"), "name has byte 0x09; only A-Z a-z 0-9 _ - . are allowed");
  EXPECT_EQ(tool_name_problem(".."), "name contains \"..\"");
}

TEST(ToolListFilter, KeepsTheFirstOfEachNameAndReportsTheRest) {
  auto listed = named({"ok", "", "ok", "bad/name", 5});
  listed.push_back({{"description", "no name"}});
  listed.push_back("not an object");
  auto filtered = filter_tools(listed, 10);
  ASSERT_EQ(filtered.tools.size(), 1u);
  EXPECT_EQ(filtered.tools[0]["name"], "ok");
  EXPECT_EQ(filtered.dropped.rejected_count, 6u);
  EXPECT_EQ(filtered.dropped.over_limit, 0u);
  json report = to_json(filtered.dropped);
  EXPECT_EQ(report["count"], 6);
  EXPECT_FALSE(report.contains("overLimit"));
  EXPECT_EQ(report["rejected"][1], json({{"name", "ok"}, {"reason", "duplicate of an earlier tool"}}));
  EXPECT_EQ(report["rejected"][3], json({{"name", "5"}, {"reason", "name is not a string"}}));
  EXPECT_EQ(report["rejected"][4]["reason"], "no name");
  EXPECT_EQ(report["rejected"][5]["reason"], "not an object");
}

TEST(ToolListFilter, CapsTheCountAndListsOnlyTheFirstRejected) {
  std::vector<json> names;
  for (int i = 0; i < 50; ++i) names.push_back("t" + std::to_string(i));
  for (int i = 0; i < 30; ++i) names.push_back("bad name " + std::to_string(i));
  auto filtered = filter_tools(named(names), 20);
  EXPECT_EQ(filtered.tools.size(), 20u);
  EXPECT_EQ(filtered.tools.back()["name"], "t19");
  EXPECT_EQ(filtered.dropped.over_limit, 30u);
  EXPECT_EQ(filtered.dropped.rejected_count, 30u);
  EXPECT_EQ(filtered.dropped.rejected.size(), max_rejected_listed);
  json report = to_json(filtered.dropped);
  EXPECT_EQ(report["count"], 60);
  EXPECT_EQ(report["overLimit"], 30);
  EXPECT_EQ(report["limit"], 20);
  const std::string line = describe(filtered.dropped);
  EXPECT_NE(line.find("30 past the limit of 20 per server (MCP_MAX_TOOLS_PER_SERVER)"), std::string::npos) << line;
  EXPECT_NE(line.find("30 invalid or duplicate: 'bad name 0'"), std::string::npos) << line;
}

TEST(ToolListFilter, ShowsLongOrNonAsciiNamesShortAndPrintable) {
  auto filtered = filter_tools(named({std::string(1000, 'n'), "caf\xc3\xa9"}), 10);
  ASSERT_EQ(filtered.dropped.rejected.size(), 2u);
  EXPECT_EQ(filtered.dropped.rejected[0].name, std::string(64, 'n') + "...");
  EXPECT_EQ(filtered.dropped.rejected[1].name, "caf??");
  EXPECT_NO_THROW(to_json(filtered.dropped).dump());
}

}  // namespace
}  // namespace harness::mcp::detail
