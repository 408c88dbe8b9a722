// W3C trace context from outside: well-formed values are read, everything
// else is dropped without an error (the work then starts its own trace).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/core/trace_context.hpp"

namespace harness::core {
namespace {

constexpr const char* good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(TraceContext, AWellFormedParentIsRead) {
  auto context = parse_trace_context(good, "vendor=value,other=1");
  ASSERT_TRUE(context);
  EXPECT_EQ(context->trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(context->parent_id, "00f067aa0ba902b7");
  EXPECT_TRUE(context->sampled);
  EXPECT_EQ(context->state, "vendor=value,other=1");
  EXPECT_EQ(context->traceparent_for("1111111111111111"), "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01");
  auto unsampled = parse_trace_context("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  ASSERT_TRUE(unsampled);
  EXPECT_FALSE(unsampled->sampled);
  EXPECT_EQ(unsampled->traceparent_for("2222222222222222").substr(53), "00");
}

TEST(TraceContext, ALaterVersionIsReadByItsVersionZeroPrefix) {
  auto context = parse_trace_context("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-next");
  ASSERT_TRUE(context);
  EXPECT_EQ(context->trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_FALSE(parse_trace_context("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"));
}

TEST(TraceContext, MalformedParentsAreDropped) {
  for (const char* bad : {
           "",
           "00",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",  // version 00 has nothing after the flags
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",   // version ff is invalid
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",   // upper case
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",   // all-zero trace id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",   // all-zero parent
           "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",   // separators
           "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",   // not hex
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0z",
       }) {
    EXPECT_FALSE(parse_trace_context(bad)) << bad;
  }
}

TEST(TraceContext, ABadStateIsDroppedAloneAndTheParentKept) {
  for (std::string bad : {std::string(513, 'a'), std::string("a=1\n"), std::string("")}) {
    auto context = parse_trace_context(good, bad);
    ASSERT_TRUE(context);
    EXPECT_EQ(context->state, "");
  }
  std::string members;
  for (int i = 0; i < 33; ++i) members += (i ? ",k" : "k") + std::to_string(i) + "=v";
  EXPECT_EQ(parse_trace_context(good, members)->state, "");
}

TEST(TraceContext, FromAnMcpMetaObject) {
  using nlohmann::json;
  auto context = trace_context_from_meta(json{{"traceparent", good}, {"tracestate", "a=b"}, {"progressToken", 1}});
  ASSERT_TRUE(context);
  EXPECT_EQ(context->state, "a=b");
  EXPECT_FALSE(trace_context_from_meta(json{{"traceparent", 5}}));
  EXPECT_FALSE(trace_context_from_meta(json::array({good})));
  EXPECT_FALSE(trace_context_from_meta(json()));
  EXPECT_EQ(trace_context_from_meta(json{{"traceparent", good}, {"tracestate", json::object()}})->state, "");
}

}  // namespace
}  // namespace harness::core
