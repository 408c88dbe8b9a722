// The OTLP encodings of one span. The protobuf is read back here by a small
// wire-format reader (the field numbers of opentelemetry-proto); the
// integration test (otlp_receiver.mjs) decodes it with the official definitions.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "harness/telemetry/otlp.hpp"

namespace harness::telemetry {
namespace {

// One message's fields: number -> the values, as raw bytes (length-delimited)
// or as numbers (varint, fixed).
struct fields {
  std::multimap<int, std::string> bytes;
  std::multimap<int, std::uint64_t> numbers;
  std::string one(int field) const {
    auto it = bytes.find(field);
    return it == bytes.end() ? std::string("<missing>") : it->second;
  }
};

fields read_message(std::string_view in) {
  fields out;
  std::size_t i = 0;
  auto varint = [&] {
    std::uint64_t v = 0;
    for (int shift = 0; i < in.size(); shift += 7) {
      auto b = static_cast<unsigned char>(in[i++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    return v;
  };
  while (i < in.size()) {
    auto key = varint();
    int field = static_cast<int>(key >> 3);
    switch (key & 7) {
      case 0:
        out.numbers.emplace(field, varint());
        break;
      case 1:
      case 5: {
        int width = (key & 7) == 1 ? 8 : 4;
        std::uint64_t v = 0;
        for (int k = 0; k < width; ++k)
          v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[i + k])) << (8 * k);
        i += width;
        out.numbers.emplace(field, v);
        break;
      }
      case 2: {
        auto n = varint();
        out.bytes.emplace(field, std::string(in.substr(i, n)));
        i += n;
        break;
      }
      default:
        ADD_FAILURE() << "wire type " << (key & 7);
        return out;
    }
  }
  return out;
}

span_data sample_span() {
  span_data s;
  s.context = {"0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", true, "v=1"};
  s.parent_span_id = "00f067aa0ba902b7";
  s.name = "execute_tool notes__add";
  s.kind = span_kind::client;
  s.start_ns = 1'700'000'000'000'000'000;
  s.end_ns = 1'700'000'000'250'000'000;
  s.attributes = {{"gen_ai.tool.name", std::string("notes__add")},
                  {"harness.reply_bytes", std::int64_t{0}},
                  {"ok", false},
                  {"ratio", 0.5},
                  {"gen_ai.response.finish_reasons", std::vector<std::string>{"stop"}}};
  s.events = {{"approval.wait", 1'700'000'000'100'000'000, {}}};
  s.status = span_status::error;
  s.status_message = "denied";
  return s;
}

TEST(OtlpProtobuf, TheSpanSitsUnderItsResourceAndScopeWithEveryField) {
  auto body = encode_otlp_protobuf({sample_span()}, {{"service.name", std::string("mcp-harness")}});
  auto request = read_message(body);
  auto resource_spans = read_message(request.one(1));
  auto resource = read_message(resource_spans.one(1));
  auto service = read_message(resource.one(1));
  EXPECT_EQ(service.one(1), "service.name");
  EXPECT_EQ(read_message(service.one(2)).one(1), "mcp-harness");
  auto scope_spans = read_message(resource_spans.one(2));
  EXPECT_EQ(read_message(scope_spans.one(1)).one(1), "mcp-harness");
  auto span = read_message(scope_spans.one(2));
  EXPECT_EQ(span.one(1), std::string("\x0a\xf7\x65\x19\x16\xcd\x43\xdd\x84\x48\xeb\x21\x1c\x80\x31\x9c", 16));
  EXPECT_EQ(span.one(2), std::string("\xb7\xad\x6b\x71\x69\x20\x33\x31", 8));
  EXPECT_EQ(span.one(3), "v=1");
  EXPECT_EQ(span.one(4).size(), 8u);
  EXPECT_EQ(span.one(5), "execute_tool notes__add");
  EXPECT_EQ(span.numbers.find(6)->second, 3u);  // SPAN_KIND_CLIENT
  EXPECT_EQ(span.numbers.find(7)->second, 1'700'000'000'000'000'000u);
  EXPECT_EQ(span.numbers.find(8)->second, 1'700'000'000'250'000'000u);
  EXPECT_EQ(span.numbers.find(16)->second, 1u);  // sampled
  EXPECT_EQ(span.bytes.count(9), 5u);
  // A zero and a false are still written: they are oneof members.
  auto [first, last] = span.bytes.equal_range(9);
  std::vector<fields> values;
  for (auto it = first; it != last; ++it) values.push_back(read_message(read_message(it->second).one(2)));
  EXPECT_EQ(values[0].one(1), "notes__add");
  EXPECT_EQ(values[1].numbers.count(3), 1u);
  EXPECT_EQ(values[2].numbers.count(2), 1u);
  EXPECT_EQ(values[3].numbers.count(4), 1u);
  EXPECT_EQ(read_message(read_message(values[4].one(5)).one(1)).one(1), "stop");
  EXPECT_EQ(read_message(span.one(11)).one(2), "approval.wait");
  auto status = read_message(span.one(15));
  EXPECT_EQ(status.one(2), "denied");
  EXPECT_EQ(status.numbers.find(3)->second, 2u);  // STATUS_CODE_ERROR
}

TEST(OtlpJson, IdsAreHexAndNumbersAsTheMappingWritesThem) {
  auto body = encode_otlp_json({sample_span()}, {{"service.name", std::string("mcp-harness")}});
  auto j = nlohmann::json::parse(body);
  const auto& span = j["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
  EXPECT_EQ(j["resourceSpans"][0]["resource"]["attributes"][0]["value"]["stringValue"], "mcp-harness");
  EXPECT_EQ(span["traceId"], "0af7651916cd43dd8448eb211c80319c");
  EXPECT_EQ(span["spanId"], "b7ad6b7169203331");
  EXPECT_EQ(span["parentSpanId"], "00f067aa0ba902b7");
  EXPECT_EQ(span["kind"], 3);
  EXPECT_EQ(span["startTimeUnixNano"], "1700000000000000000");
  EXPECT_EQ(span["attributes"][1]["value"]["intValue"], "0");
  EXPECT_EQ(span["attributes"][2]["value"]["boolValue"], false);
  EXPECT_EQ(span["attributes"][4]["value"]["arrayValue"]["values"][0]["stringValue"], "stop");
  EXPECT_EQ(span["events"][0]["name"], "approval.wait");
  EXPECT_EQ(span["status"]["code"], 2);
}

}  // namespace
}  // namespace harness::telemetry
