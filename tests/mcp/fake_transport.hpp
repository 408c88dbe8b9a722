// An in-memory MCP transport for the client's unit tests (with the fake
// clock): it records what the client sends and lets the test answer.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "harness/mcp/errors.hpp"
#include "harness/mcp/transport.hpp"

namespace harness::mcp::testing {

namespace asio = boost::asio;
using nlohmann::json;

// Answers initialize itself, and server/discover as `era` says; everything
// else waits in `held` until the test replies, unless `script` answers it.
class fake_transport final : public transport {
 public:
  explicit fake_transport(asio::io_context& ctx) : ctx_(ctx) {}
  asio::awaitable<status> open(transport_handlers handlers) override {
    handlers_ = std::move(handlers);
    co_return status{};
  }
  asio::awaitable<status> send(json message) override {
    sent.push_back(message);
    const std::string method = message.value("method", "");
    if (method == "server/discover" && era != "silent") {
      if (era == "modern") {
        reply(message["id"],
              {{"supportedVersions", {"2026-07-28"}},
               {"capabilities", capabilities},
               {"_meta", {{"io.modelcontextprotocol/serverInfo", {{"name", "fake"}, {"version", "2"}}}}}});
      } else {
        fail(message["id"], -32601, "Method not found");
      }
    } else if (script && message.contains("id") && script(message)) {
      reply(message["id"], *script(message));
    } else if (method == "initialize") {
      ++initializes;
      reply(message["id"], {{"protocolVersion", "2025-06-18"},
                            {"capabilities", json::object()},
                            {"serverInfo", {{"name", "fake"}, {"version", "1"}}}});
    } else if (expire_next > 0 && message.contains("id")) {
      --expire_next;
      co_return make_error(harness::mcp::errc::session_expired, "404");
    } else if (message.contains("id") && !method.empty()) {
      held.push_back(message);
    }
    co_return status{};
  }
  void fail(const json& id, int code, std::string text) {
    json message = {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", std::move(text)}}}};
    asio::post(ctx_, [this, message] { handlers_.on_message(message); });
  }
  void reply(const json& id, json result) {
    json message = {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
    asio::post(ctx_, [this, message] { handlers_.on_message(message); });
  }
  // A request of the server's own (elicitation/create, ...).
  void ask(json id, std::string method, json params) {
    json message = {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"method", std::move(method)}, {"params", params}};
    asio::post(ctx_, [this, message] { handlers_.on_message(message); });
  }
  // Our answer to the server's request `id` (null when none was sent).
  json answer_to(const json& id) const {
    for (const auto& m : sent) {
      if (!m.contains("method") && m.value("id", json()) == id) return m;
    }
    return nullptr;
  }
  void lose(error e) { handlers_.on_closed(std::move(e)); }
  // A message the transport could not read, with what it could read of it.
  void unreadable(message_identity identity) {
    handlers_.on_undeliverable(
        {make_error(harness::mcp::errc::message_too_large, "it was too big", "raise it"), identity});
  }
  bool abandon(const json& id) override {
    if (!closes_abandoned) return false;
    abandoned.push_back(id);
    return true;
  }
  void set_protocol_version(const std::string& v) override { version = v; }
  void on_initialized() override {}
  void reset_session() override { ++resets; }
  asio::awaitable<void> close() override { co_return; }
  std::string describe() const override { return "fake"; }
  int pid() const override { return process ? 4242 : 0; }
  bool process = false;  // pretends to be a stdio child

  // How server/discover is answered: "legacy" (-32601, as a server of the
  // 2025 era answers), "modern" (2026-07-28) or "silent" (held, no answer).
  std::string era = "legacy";
  // Answers the requests it returns a result for (called twice per request: keep it pure).
  std::function<std::optional<json>(const json&)> script;
  json capabilities = {{"tools", json::object()}};  // what server/discover declares (era "modern")
  std::vector<json> sent;
  std::vector<json> held;
  // Whether abandon() takes a given-up request (as HTTP in 2026-07-28 does), and what it took.
  bool closes_abandoned = false;
  std::vector<json> abandoned;
  int initializes = 0;
  int resets = 0;
  int expire_next = 0;  // how many requests get a session_expired
  std::string version;

 private:
  asio::io_context& ctx_;
  transport_handlers handlers_;
};

}  // namespace harness::mcp::testing
