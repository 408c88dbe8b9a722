// Every component's error codes: each value has a wire name (unique, snake_case)
// and an HTTP status in 400..599, and the count each header declares is right.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/core/error.hpp"
#include "harness/every_errc.hpp"

namespace harness {
namespace {

struct code_info {
  std::string category;
  std::string wire;
  unsigned status;
};

template <error_enum E>
void collect(std::vector<code_info>& out) {
  for (int v = 1; v <= errc_count<E>; ++v) {
    error_code c = static_cast<E>(v);
    out.push_back({c.category().name(), std::string(c.wire_name()), c.http_status()});
  }
}

template <error_enum E>
void expect_count_is_last() {
  // One past the last value is not a code: a value added without raising
  // errc_count would be skipped by every loop over the codes.
  error_code past = static_cast<E>(errc_count<E> + 1);
  EXPECT_EQ(past.wire_name(), "") << past.category().name() << ": errc_count is not the number of values";
  EXPECT_EQ(past.http_status(), 0u) << past.category().name();
}

// Every component's codes: every_errc is generated from the errors.hpp files, so none is left out.
std::vector<code_info> every_code() {
  std::vector<code_info> out;
  []<class... E>(errc_list<E...>, std::vector<code_info>& o) { (collect<E>(o), ...); }(every_errc{}, out);
  return out;
}

TEST(ErrorCodes, EveryCodeHasASnakeCaseWireNameAndAnHttpStatus) {
  const std::regex snake("[a-z][a-z0-9]*(_[a-z0-9]+)*");
  auto codes = every_code();
  EXPECT_GT(codes.size(), 100u);
  for (const auto& c : codes) {
    EXPECT_TRUE(std::regex_match(c.wire, snake)) << c.category << ": '" << c.wire << "'";
    EXPECT_GE(c.status, 400u) << c.category << ":" << c.wire;
    EXPECT_LE(c.status, 599u) << c.category << ":" << c.wire;
  }
}

TEST(ErrorCodes, WireNamesAreUnique) {
  std::map<std::string, std::vector<std::string>> owners;
  for (const auto& c : every_code()) owners[c.wire].push_back(c.category);
  for (const auto& [wire, categories] : owners) {
    EXPECT_EQ(categories.size(), 1u) << wire << " is a code of several components (or twice of one)";
  }
}

TEST(ErrorCodes, EachCountCoversTheWholeEnum) {
  []<class... E>(errc_list<E...>) { (expect_count_is_last<E>(), ...); }(every_errc{});
}

TEST(ErrorCodes, TheWireNamesClientsReadStayTheSame) {
  EXPECT_EQ(error_code(mcp::errc::timeout).wire_name(), "mcp_timeout");
  EXPECT_EQ(error_code(docker::errc::not_found).wire_name(), "docker_not_found");
  EXPECT_EQ(error_code(execution::errc::too_many_sessions).wire_name(), "too_many_sessions");
  EXPECT_EQ(error_code(core::errc::invalid_setting).wire_name(), "invalid_setting");
  EXPECT_EQ(error_code(store::errc::open_failed).wire_name(), "store_open_failed");
  EXPECT_EQ(error_code(auth::errc::key_required).http_status(), 401u);
  EXPECT_EQ(error_code(auth::errc::invalid_key).http_status(), 401u);
  EXPECT_EQ(error_code(auth::errc::admin_required).http_status(), 403u);
  EXPECT_EQ(error_code(auth::errc::user_not_allowed).http_status(), 403u);
  EXPECT_EQ(error_code(auth::errc::user_required).http_status(), 400u);
  EXPECT_EQ(error_code(auth::errc::rate_limited).http_status(), 429u);
}

TEST(ErrorCodes, CompareTypedAcrossComponents) {
  auto e = make_error(mcp::errc::timeout, "the server did not answer");
  EXPECT_EQ(e.code, mcp::errc::timeout);
  EXPECT_NE(e.code, mcp::errc::connection_lost);
  EXPECT_NE(e.code, llm::errc::timeout);  // same enumerator name, another component
  EXPECT_TRUE(e.code.is<mcp::errc>());
  EXPECT_FALSE(e.code.is<llm::errc>());
  EXPECT_EQ(error().code, core::errc::internal_error);
}

TEST(ErrorCodes, PrintAsTheirWireName) {
  std::ostringstream out;
  out << error_code(llm::errc::rate_limited) << " " << skills::errc::skill_not_found;
  EXPECT_EQ(out.str(), "llm_rate_limited skill_not_found");
  EXPECT_EQ(::testing::PrintToString(error_code(http::errc::not_found)), "not_found");
}

TEST(ErrorCodes, ReadBackFromTheirWireName) {
  EXPECT_EQ(errc_from_wire_name<llm::errc>("llm_overloaded"), llm::errc::overloaded);
  EXPECT_EQ(errc_from_wire_name<llm::errc>("overloaded"), std::nullopt);
  EXPECT_EQ(errc_from_wire_name<llm::errc>("mcp_timeout"), std::nullopt);
}

}  // namespace
}  // namespace harness
