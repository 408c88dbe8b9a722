// Tracing end to end: the real binary exports over OTLP/HTTP to a receiver
// that decodes with the official OpenTelemetry protobuf definitions
// (otlp_receiver.mjs). A task with two turns and three tool calls, made
// under a caller's traceparent, must give one tree: request -> task -> turn
// -> LLM call and code block -> tool calls (across the sandbox boundary) ->
// MCP requests; the MCP servers over HTTP (SDK 1.x of 2025-11-25 and SDK 2.x
// of 2026-07-28) get the trace in their headers and in _meta; no attribute
// carries the personal data that went through. With the collector down or
// slow, requests are unaffected and the lost spans are counted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "llm/fake_llm_server.hpp"
#include "llm/fake_llm_steps.hpp"
#include "support/child_process.hpp"
#include "support/harness_server.hpp"

namespace harness::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* caller_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr const char* caller_span = "00f067aa0ba902b7";
constexpr const char* email = "alice.tracing@example.com";
constexpr const char* card = "4111 1111 1111 1111";

// A node script of the tests that prints its port ("{"port": N}" or "listening N").
struct node_service {
  std::unique_ptr<child_process> process;
  unsigned short port = 0;
  explicit node_service(std::vector<std::string> argv) {
    argv.insert(argv.begin(), find_on_path("node"));
    process = std::make_unique<child_process>(argv, std::map<std::string, std::string>{{"NODE_EXTRA_CA_CERTS", ""}});
    auto seen = process->wait_for_output("\n", 30s);
    if (!seen) throw std::runtime_error("no port from " + argv[1] + ": " + process->output());
    auto line = process->output();
    auto digits = line.find_first_of("0123456789");
    port = static_cast<unsigned short>(std::stoi(line.substr(digits)));
  }
};

class Tracing : public ::testing::Test {
 protected:
  void SetUp() override {
    owner = "harness-tracing-" + std::to_string(getpid());
    root = fs::temp_directory_path() / owner;
    files = root / "files";
    fs::create_directories(files);
  }
  void TearDown() override {
    if (server) {
      EXPECT_EQ(server->stop(), 0) << server->output();
    }
    EXPECT_EQ(labelled_containers(owner), 0);
    fs::remove_all(root);
  }

  void start_receiver(std::vector<std::string> args = {}) {
    args.insert(args.begin(), source_path("tests/telemetry/otlp_receiver.mjs"));
    receiver = std::make_unique<node_service>(args);
  }

  // The npm memory server (stdio) and the two HTTP servers of the SDKs.
  std::string write_mcp_config() {
    modern = std::make_unique<node_service>(
        std::vector<std::string>{source_path("tests/mcp/modern_server.mjs"), "http", "0"});
    sdk = std::make_unique<node_service>(
        std::vector<std::string>{source_path("tests/mcp/versioned_server.mjs"), "2025-11-25", "http", "0"});
    const json config = {
        {"mcpServers",
         {{"memory",
           {{"command", "node"},
            {"args", {source_path("servers/node_modules/@modelcontextprotocol/server-memory/dist/index.js")}},
            {"env", {{"MEMORY_FILE_PATH", (root / "memory.jsonl").string()}}}}},
          {"modern", {{"url", "http://127.0.0.1:" + std::to_string(modern->port) + "/mcp"}}},
          {"sdk", {{"url", "http://127.0.0.1:" + std::to_string(sdk->port) + "/mcp"}}}}}};
    auto path = root / "mcp.json";
    std::ofstream(path) << config.dump(2);
    return path.string();
  }

  void start_server(std::map<std::string, std::string> extra) {
    extra.emplace("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + std::to_string(receiver->port));
    extra.emplace("OTEL_BSP_SCHEDULE_DELAY", "100");
    extra.emplace("OTEL_SERVICE_NAME", "harness-under-test");
    server = std::make_unique<harness_server>(
        end_to_end_env(owner, root.string(), files.string(), llm.openai_base_url(), extra));
    ASSERT_TRUE(server->wait_healthy(1, {"store"})) << server->call("GET", "/health")->body;
  }

  json receiver_state() {
    auto r = http_call(receiver->port, "GET", "/spans");
    return r && r->status == 200 ? r->json() : json::object();
  }

  // Polls until a span named `name` has come (the export runs every 100 ms).
  json spans_once(const std::string& name) {
    json state;
    for (int i = 0; i < 100; ++i) {
      state = receiver_state();
      for (const auto& s : state.value("spans", json::array())) {
        if (s["name"] == name) return state["spans"];
      }
      std::this_thread::sleep_for(100ms);
    }
    ADD_FAILURE() << "no span '" << name << "' came: " << state.dump();
    return state.value("spans", json::array());
  }

  std::string owner;
  fs::path root, files;
  fake_llm_server llm;
  std::unique_ptr<node_service> receiver, modern, sdk;
  std::unique_ptr<harness_server> server;
};

std::vector<json> named(const json& spans, const std::string& name) {
  std::vector<json> out;
  for (const auto& s : spans) {
    if (s["name"] == name) out.push_back(s);
  }
  return out;
}

std::vector<json> children(const json& spans, const json& parent) {
  std::vector<json> out;
  for (const auto& s : spans) {
    if (s["parentSpanId"] == parent["spanId"] && s["traceId"] == parent["traceId"]) out.push_back(s);
  }
  return out;
}

// The value of a counter series in /metrics text; -1 when it is not there.
double series(const std::string& metrics, const std::string& name) {
  auto at = metrics.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::stod(metrics.substr(at + name.size() + 2));
}

// "00-<trace>-<span>-01" -> <span>.
std::string parent_of(const std::string& traceparent) {
  return traceparent.size() == 55 ? traceparent.substr(36, 16) : std::string();
}

TEST_F(Tracing, ATaskIsOneTreeFromTheCallersSpanToTheMcpServersAndCarriesNoPersonalData) {
  start_receiver();
  start_server({{"MCP_CONFIG", write_mcp_config()}});
  llm.push(json::array(
      {code_step(std::string("await callMCPTool('memory__create_entities', {entities: [{name: 'alice', entityType: "
                             "'person', observations: ['mail ") +
                 email + "', 'card " + card +
                 "']}]});\n"
                 "const modern = await callMCPTool('modern__meta', {});\n"
                 "const sdk = await callMCPTool('sdk__headers', {});\n"
                 "return {modernHeader: modern.headers.traceparent, modernMeta: modern._meta.traceparent, "
                 "sdkHeader: sdk.traceparent, sdkMeta: sdk.metaTraceparent};"),
       answer_step("Saved.")}));
  const std::string traceparent = std::string("00-") + caller_trace + "-" + caller_span + "-01";
  auto r = server->call("POST", "/task",
                        json{{"userId", "alice"}, {"task", std::string("Remember ") + email + " and " + card}}.dump(),
                        60s, "traceparent: " + traceparent + "\r\ntracestate: vendor=1\r\n");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto task = r->json();
  ASSERT_EQ(task["status"], "succeeded") << task.dump();
  EXPECT_EQ(task["traceId"], caller_trace);
  EXPECT_TRUE(r->header("traceparent").starts_with(std::string("00-") + caller_trace + "-"))
      << r->header("traceparent");
  auto stored = server->call("GET", "/tasks/" + task["taskId"].get<std::string>());
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->json()["traceId"], caller_trace);

  auto spans = spans_once("POST /task");
  // The request's server span is the child of the caller's.
  auto request = named(spans, "POST /task");
  ASSERT_EQ(request.size(), 1u) << spans.dump();
  EXPECT_EQ(request[0]["traceId"], caller_trace);
  EXPECT_EQ(request[0]["parentSpanId"], caller_span);
  EXPECT_EQ(request[0]["kind"], 2);
  EXPECT_EQ(request[0]["traceState"], "vendor=1");
  EXPECT_EQ(request[0]["attributes"]["http.route"], "/task");
  EXPECT_EQ(request[0]["attributes"]["http.response.status_code"], 200);
  EXPECT_EQ(request[0]["resource"]["service.name"], "harness-under-test");
  EXPECT_EQ(request[0]["encoding"], "protobuf");
  EXPECT_EQ(parent_of(r->header("traceparent")), request[0]["spanId"]);

  auto agent = children(spans, request[0]);
  ASSERT_EQ(agent.size(), 1u) << spans.dump();
  EXPECT_EQ(agent[0]["name"], "invoke_agent mcp-harness");
  EXPECT_EQ(agent[0]["attributes"]["harness.task.status"], "succeeded");
  EXPECT_EQ(agent[0]["attributes"]["gen_ai.conversation.id"], task["conversationId"]);
  auto turns = children(spans, agent[0]);
  ASSERT_EQ(turns.size(), 2u) << spans.dump();

  // Each turn asks the LLM once (the GenAI conventions' attributes); the LLM
  // got the call span's traceparent.
  auto requests = llm.requests();
  ASSERT_EQ(requests.size(), 2u);
  std::vector<json> blocks;
  for (std::size_t t = 0; t < turns.size(); ++t) {
    json chat, block;
    for (const auto& c : children(spans, turns[t])) (c["name"] == "execute_code" ? block : chat) = c;
    ASSERT_TRUE(chat.is_object()) << spans.dump();
    EXPECT_TRUE(chat["name"].get<std::string>().starts_with("chat ")) << chat;
    EXPECT_EQ(chat["kind"], 3);
    EXPECT_EQ(chat["attributes"]["gen_ai.operation.name"], "chat");
    EXPECT_EQ(chat["attributes"]["gen_ai.provider.name"], "openai");
    EXPECT_TRUE(chat["attributes"]["gen_ai.request.model"].is_string());
    EXPECT_GT(chat["attributes"]["gen_ai.usage.input_tokens"].get<int>(), 0);
    EXPECT_TRUE(chat["attributes"]["gen_ai.response.finish_reasons"].is_array()) << chat;
    bool seen = false;
    for (const auto& req : requests)
      seen = seen || parent_of(req.headers.count("traceparent") ? req.headers.at("traceparent") : "") == chat["spanId"];
    EXPECT_TRUE(seen) << "no LLM request named span " << chat["spanId"];
    if (block.is_object()) blocks.push_back(block);
  }
  ASSERT_EQ(blocks.size(), 1u) << "the first turn ran code, the second answered";

  // The block: the sandbox claim and, across the sandbox boundary, the three calls.
  auto below = children(spans, blocks[0]);
  std::vector<json> calls;
  for (const auto& s : below) {
    if (s["name"].get<std::string>().starts_with("execute_tool")) calls.push_back(s);
  }
  ASSERT_EQ(calls.size(), 3u) << spans.dump();
  std::map<std::string, std::string> client_span_of;  // tool -> its MCP request's span id
  for (const auto& call : calls) {
    auto tool = call["attributes"]["gen_ai.tool.name"].get<std::string>();
    EXPECT_EQ(call["name"], "execute_tool " + tool);
    auto mcp = children(spans, call);
    ASSERT_EQ(mcp.size(), 1u) << call.dump();
    EXPECT_EQ(mcp[0]["kind"], 3);
    EXPECT_EQ(mcp[0]["attributes"]["mcp.method.name"], "tools/call");
    client_span_of[tool] = mcp[0]["spanId"];
  }
  EXPECT_TRUE(client_span_of.contains("memory__create_entities"));

  // The HTTP servers got the MCP request span's trace as the header and in _meta.
  auto observation = requests[1].body;
  const std::string modern_tp = std::string("00-") + caller_trace + "-" + client_span_of["modern__meta"] + "-01";
  const std::string sdk_tp = std::string("00-") + caller_trace + "-" + client_span_of["sdk__headers"] + "-01";
  EXPECT_NE(observation.find("\\\"modernHeader\\\":\\\"" + modern_tp), std::string::npos) << observation;
  EXPECT_NE(observation.find("\\\"modernMeta\\\":\\\"" + modern_tp), std::string::npos) << observation;
  EXPECT_NE(observation.find("\\\"sdkHeader\\\":\\\"" + sdk_tp), std::string::npos) << observation;
  EXPECT_NE(observation.find("\\\"sdkMeta\\\":\\\"" + sdk_tp), std::string::npos) << observation;

  // Nothing personal in any span: not the task's text, not the tool's arguments.
  auto everything = spans.dump();
  EXPECT_EQ(everything.find("alice.tracing"), std::string::npos) << everything;
  EXPECT_EQ(everything.find("4111 1111"), std::string::npos) << everything;
  EXPECT_EQ(everything.find("4111111111111111"), std::string::npos) << everything;
  EXPECT_EQ(everything.find("Remember"), std::string::npos) << everything;
}

TEST_F(Tracing, ExecuteJoinsTheCallersTraceAndContentIsCapturedOnlyCensoredWhenAskedFor) {
  start_receiver();
  start_server({{"MCP_CONFIG", write_mcp_config()},
                {"OTEL_CAPTURE_CONTENT", "true"},
                {"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"}});
  const std::string traceparent = std::string("00-") + caller_trace + "-" + caller_span + "-01";
  auto r = server->call("POST", "/execute",
                        json{{"userId", "bob"},
                             {"code", std::string("const r = await callMCPTool('memory__create_entities', {entities: "
                                                  "[{name: 'bob', entityType: 'person', observations: ['") +
                                          email + "']}]});\nreturn 'ok';"}}
                            .dump(),
                        30s, "traceparent: " + traceparent + "\r\n");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto spans = spans_once("POST /execute");
  auto request = named(spans, "POST /execute");
  ASSERT_EQ(request.size(), 1u);
  EXPECT_EQ(request[0]["encoding"], "json");
  EXPECT_EQ(request[0]["parentSpanId"], caller_span);
  auto block = children(spans, request[0]);
  ASSERT_EQ(block.size(), 1u) << spans.dump();
  EXPECT_EQ(block[0]["name"], "execute_code");
  auto calls = named(spans, "execute_tool memory__create_entities");
  ASSERT_EQ(calls.size(), 1u) << spans.dump();
  EXPECT_EQ(calls[0]["parentSpanId"], block[0]["spanId"]);
  // Content on: the call's arguments and result are there, censored (the
  // caller's code had the address in the clear: it is a token in the span).
  auto arguments = calls[0]["attributes"]["gen_ai.tool.call.arguments"].get<std::string>();
  EXPECT_NE(arguments.find("EMAIL_"), std::string::npos) << arguments;
  auto result = calls[0]["attributes"]["gen_ai.tool.call.result"].get<std::string>();
  EXPECT_NE(result.find("EMAIL_"), std::string::npos) << result;
  auto everything = spans.dump();
  EXPECT_EQ(everything.find(email), std::string::npos) << everything;
  // The one-shot block's sandbox is removed after the answer, and the pool
  // starts the next one: each a trace of its own.
  auto removed = spans_once("sandbox.remove");
  auto removal = named(removed, "sandbox.remove");
  ASSERT_FALSE(removal.empty());
  EXPECT_TRUE(removal[0]["parentSpanId"].get<std::string>().empty());
  EXPECT_FALSE(named(spans_once("sandbox.start"), "sandbox.start").empty());
}

TEST_F(Tracing, ACollectorThatIsDownOrSlowCostsRequestsNothingAndTheLostSpansAreCounted) {
  start_receiver({"--fail"});
  start_server({{"OTEL_BSP_MAX_QUEUE_SIZE", "8"}, {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "4"}});
  for (int i = 0; i < 30; ++i) {
    auto health = server->call("GET", "/health");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
  }
  auto r = server->call("POST", "/execute", json{{"userId", "carol"}, {"code", "return 1 + 1"}}.dump(), 30s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  const std::string failed = "harness_trace_spans_dropped_total{reason=\"export_failed\"}";
  std::string metrics;
  for (int i = 0; i < 50; ++i) {
    auto scraped = server->call("GET", "/metrics");
    ASSERT_TRUE(scraped);
    ASSERT_EQ(scraped->status, 200) << scraped->body;
    metrics = scraped->body;
    if (series(metrics, failed) > 0) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_GT(series(metrics, failed), 0) << metrics;
  EXPECT_GT(receiver_state()["rejected"].get<int>(), 0);
}

TEST_F(Tracing, ASlowCollectorFillsTheQueueAndSpansBeyondItAreDropped) {
  start_receiver({"--slow-ms", "5000"});
  start_server({{"OTEL_BSP_MAX_QUEUE_SIZE", "4"}, {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "2"}});
  for (int i = 0; i < 40; ++i) {
    auto health = server->call("GET", "/health", {}, 2s);
    ASSERT_TRUE(health) << "a request waited for the collector";
    EXPECT_EQ(health->status, 200);
  }
  auto scraped = server->call("GET", "/metrics");
  ASSERT_TRUE(scraped);
  ASSERT_EQ(scraped->status, 200) << scraped->body;
  EXPECT_GT(series(scraped->body, "harness_trace_spans_dropped_total{reason=\"queue_full\"}"), 0) << scraped->body;
}

}  // namespace
}  // namespace harness::testing
