// The tracer on a fake clock and a fake exporter: sampling, parent links,
// the inert spans of tracing off, batching, and the bounded queue that drops
// (and counts) rather than grows when the collector does not keep up.
#include "harness/telemetry/tracer.hpp"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "harness/core/errors.hpp"
#include "harness/core/metrics.hpp"
#include "support/drive_io.hpp"
#include "support/fake_clock.hpp"

namespace harness::telemetry {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

using testing::settle;

// Keeps what it is sent; fails while `failing`; while `stalled`, never answers.
struct fake_exporter_state {
  std::vector<std::vector<span_data>> batches;
  bool failing = false;
};

class fake_exporter final : public span_exporter {
 public:
  explicit fake_exporter(std::shared_ptr<fake_exporter_state> state) : state_(std::move(state)) {}
  asio::awaitable<status> send(std::vector<span_data> batch) override {
    if (state_->failing) co_return make_error(core::errc::internal_error, "collector down");
    state_->batches.push_back(std::move(batch));
    co_return status{};
  }

 private:
  std::shared_ptr<fake_exporter_state> state_;
};

struct fixture {
  asio::io_context io;
  testing::fake_clock clock;
  std::shared_ptr<core::metrics_registry> metrics = std::make_shared<core::metrics_registry>();
  std::shared_ptr<fake_exporter_state> sent = std::make_shared<fake_exporter_state>();
  std::shared_ptr<tracer> make(tracer_options options = {}) {
    auto t = tracer::create(io.get_executor(), clock, options, std::make_unique<fake_exporter>(sent), metrics);
    t->start();
    settle(io);
    return t;
  }
  std::vector<span_data> all() const {
    std::vector<span_data> out;
    for (const auto& b : sent->batches) out.insert(out.end(), b.begin(), b.end());
    return out;
  }
};

TEST(Tracer, ChildrenShareTheTraceAndNameTheirParent) {
  fixture f;
  auto t = f.make();
  {
    auto root = tracer::start_root(t, "POST /task", span_kind::server, std::nullopt);
    ASSERT_TRUE(root.recording());
    EXPECT_EQ(root.context().trace_id.size(), 32u);
    EXPECT_EQ(root.context().span_id.size(), 16u);
    auto child = root.child("turn");
    EXPECT_EQ(child.context().trace_id, root.context().trace_id);
    EXPECT_NE(child.context().span_id, root.context().span_id);
    child.set("harness.turn", 1);
    f.clock.advance(3ms);
  }
  f.clock.advance(5s);
  settle(f.io);
  auto spans = f.all();
  ASSERT_EQ(spans.size(), 2u);
  // The child ended first.
  EXPECT_EQ(spans[0].name, "turn");
  EXPECT_EQ(spans[0].parent_span_id, spans[1].context.span_id);
  EXPECT_TRUE(spans[1].parent_span_id.empty());
  EXPECT_EQ(spans[0].end_ns - spans[0].start_ns, 3'000'000);
  ASSERT_EQ(spans[0].attributes.size(), 1u);
  EXPECT_EQ(std::get<std::int64_t>(spans[0].attributes[0].value), 1);
}

TEST(Tracer, ACallersTraceBecomesTheParent) {
  fixture f;
  auto t = f.make();
  auto remote = core::parse_trace_context("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "vendor=x");
  auto root = tracer::start_root(t, "POST /execute", span_kind::server, remote);
  EXPECT_EQ(root.context().trace_id, "0af7651916cd43dd8448eb211c80319c");
  EXPECT_EQ(root.context().state, "vendor=x");
  root.end();
  f.clock.advance(5s);
  settle(f.io);
  ASSERT_EQ(f.all().size(), 1u);
  EXPECT_EQ(f.all()[0].parent_span_id, "b7ad6b7169203331");
}

TEST(Tracer, WithTracingOffSpansAreInertButCarryTheCallersTrace) {
  auto remote = core::parse_trace_context("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  auto root = tracer::start_root(nullptr, "POST /task", span_kind::server, remote);
  EXPECT_FALSE(root.recording());
  auto child = root.child("llm");
  EXPECT_FALSE(child.recording());
  EXPECT_EQ(child.context().traceparent(), "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  auto none = tracer::start_root(nullptr, "GET /health", span_kind::server, std::nullopt);
  EXPECT_EQ(none.context().traceparent(), "");
  none.set("k", "v");  // nothing, no crash
  none.fail("x");
}

TEST(Tracer, AnUnsampledParentIsFollowedAndItsChildrenAreNotRecorded) {
  fixture f;
  auto t = f.make();
  auto remote = core::parse_trace_context("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00");
  auto root = tracer::start_root(t, "POST /task", span_kind::server, remote);
  EXPECT_FALSE(root.recording());
  EXPECT_TRUE(root.context().valid());
  EXPECT_TRUE(root.context().traceparent().ends_with("-00"));
  EXPECT_FALSE(root.child("turn").recording());
}

TEST(Sampler, RatioDecidesByTheTraceIdSoEveryServiceAgrees) {
  sampler half{sampler_kind::trace_id_ratio, 0.5};
  EXPECT_TRUE(
      half.decide("0000000000000000"
                  "0000000000000001",
                  std::nullopt));
  EXPECT_FALSE(
      half.decide("0000000000000000"
                  "ffffffffffffffff",
                  std::nullopt));
  // Not parent-based: the parent's flag does not count.
  EXPECT_FALSE(
      half.decide("0000000000000000"
                  "ffffffffffffffff",
                  true));
  sampler parent_half{sampler_kind::parent_trace_id_ratio, 0.5};
  EXPECT_TRUE(
      parent_half.decide("0000000000000000"
                         "ffffffffffffffff",
                         true));
  EXPECT_FALSE(
      parent_half.decide("0000000000000000"
                         "0000000000000001",
                         false));
  EXPECT_FALSE(sampler{sampler_kind::always_off}.decide("00000000000000000000000000000001", true));
  EXPECT_TRUE(sampler{sampler_kind::parent_always_on}.decide("00000000000000000000000000000001", std::nullopt));
  EXPECT_FALSE(sampler{sampler_kind::parent_always_off}.decide("00000000000000000000000000000001", std::nullopt));
}

TEST(Tracer, SpansWaitForTheScheduledDelayUnlessAFullBatchIsQueued) {
  fixture f;
  auto t = f.make({.sampler = {}, .max_queue = 100, .max_batch = 4, .schedule_delay = 5s, .capture_content = false});
  auto root = tracer::start_root(t, "root", span_kind::internal, std::nullopt);
  root.child("c").end();
  settle(f.io);
  EXPECT_TRUE(f.sent->batches.empty());  // one span waits for the delay
  f.clock.advance(5s);
  settle(f.io);
  ASSERT_EQ(f.sent->batches.size(), 1u);
  for (int i = 0; i < 5; ++i) root.child("c").end();
  settle(f.io);
  // The fourth made a full batch: the queue went at once, in batches of at most 4.
  ASSERT_EQ(f.sent->batches.size(), 3u);
  EXPECT_EQ(f.sent->batches[1].size(), 4u);
  EXPECT_EQ(f.sent->batches[2].size(), 1u);
}

TEST(Tracer, SpansThatEndAfterShutdownAreCountedAsDropped) {
  fixture f;
  auto t = f.make();
  asio::co_spawn(f.io, t->shutdown(1s), asio::detached);
  settle(f.io);
  tracer::start_root(t, "late", span_kind::internal, std::nullopt).end();
  EXPECT_EQ(t->dropped(), 1u);
  auto text = f.metrics->render();
  EXPECT_NE(text.find("harness_trace_spans_dropped_total{reason=\"shutdown\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("harness_trace_spans_dropped_total{reason=\"queue_full\"} 0"), std::string::npos) << text;
}

TEST(Tracer, WhenTheCollectorDoesNotKeepUpSpansAreDroppedAndCounted) {
  fixture f;
  auto t = f.make({.sampler = {}, .max_queue = 3, .max_batch = 100, .schedule_delay = 5s, .capture_content = false});
  auto root = tracer::start_root(t, "root", span_kind::internal, std::nullopt);
  for (int i = 0; i < 10; ++i) root.child("c").end();
  EXPECT_EQ(t->dropped(), 7u);
  f.sent->failing = true;
  f.clock.advance(5s);
  settle(f.io);
  EXPECT_EQ(t->dropped(), 10u);  // the batch that failed is lost too
  auto text = f.metrics->render();
  EXPECT_NE(text.find("harness_trace_spans_dropped_total{reason=\"queue_full\"} 7"), std::string::npos) << text;
  EXPECT_NE(text.find("harness_trace_spans_dropped_total{reason=\"export_failed\"} 3"), std::string::npos) << text;
  // Back up: new spans go through.
  f.sent->failing = false;
  root.child("c").end();
  f.clock.advance(5s);
  settle(f.io);
  EXPECT_EQ(f.all().size(), 1u);
  EXPECT_NE(f.metrics->render().find("harness_trace_spans_exported_total 1"), std::string::npos);
}

TEST(Tracer, ShutdownSendsWhatIsQueued) {
  fixture f;
  auto t = f.make();
  tracer::start_root(t, "last", span_kind::internal, std::nullopt).end();
  bool done = false;
  asio::co_spawn(f.io, t->shutdown(1s), [&](std::exception_ptr) { done = true; });
  settle(f.io);
  EXPECT_TRUE(done);
  EXPECT_EQ(f.all().size(), 1u);
}

TEST(Span, TextFromOutsideIsMadeValidUtf8AndCut) {
  fixture f;
  auto t = f.make();
  {
    auto s = tracer::start_root(t, "bad\xff name", span_kind::internal, std::nullopt);
    s.set("tool", std::string("a\xc3(b"));
    s.set("long", std::string(20000, 'x'));
    s.set("list", std::vector<std::string>{"ok", "\xed\xa0\x80"});
    s.fail("tool_error\xfe");
  }
  f.clock.advance(5s);
  settle(f.io);
  auto spans = f.all();
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].name, "bad\xEF\xBF\xBD name");
  EXPECT_EQ(std::get<std::string>(spans[0].attributes[0].value), "a\xEF\xBF\xBD(b");
  EXPECT_LE(std::get<std::string>(spans[0].attributes[1].value).size(), 8192u);
  EXPECT_EQ(std::get<std::vector<std::string>>(spans[0].attributes[2].value)[1],
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(spans[0].status, span_status::error);
  EXPECT_EQ(spans[0].status_message, "tool_error\xEF\xBF\xBD");
  EXPECT_EQ(std::get<std::string>(spans[0].attributes[3].value), "tool_error\xEF\xBF\xBD");
}

}  // namespace
}  // namespace harness::telemetry
