#include "llm/fake_llm_server.hpp"

#include <atomic>
#include <chrono>
#include <deque>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace harness::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using nlohmann::json;

enum class api { openai, anthropic, control, unknown };

api api_of(const std::string& path) {
  auto ends_with = [&](std::string_view s) {
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (path.rfind("/_fake/", 0) == 0) return api::control;
  if (ends_with("/chat/completions")) return api::openai;
  if (ends_with("/v1/messages")) return api::anthropic;
  return api::unknown;
}

json error_body(api which, const std::string& type, const std::string& message) {
  if (which == api::anthropic) return {{"type", "error"}, {"error", {{"type", type}, {"message", message}}}};
  return {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}};
}

std::string default_error_type(int status) {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return "api_error";
  }
}

json render_reply(api which, const json& reply, const json& request, int serial) {
  std::string text = reply.value("text", "");
  json calls = reply.value("toolCalls", json::array());
  json usage = reply.value("usage", json::object());
  std::int64_t in = usage.value("inputTokens", std::int64_t{0});
  std::int64_t out = usage.value("outputTokens", std::int64_t{0});
  std::string model = request.is_object() ? request.value("model", "fake-model") : "fake-model";
  if (which == api::anthropic) {
    json content = json::array();
    if (!text.empty()) content.push_back({{"type", "text"}, {"text", text}});
    int n = 0;
    for (const auto& c : calls) {
      content.push_back({{"type", "tool_use"},
                         {"id", c.value("id", "toolu_fake_" + std::to_string(serial) + "_" + std::to_string(++n))},
                         {"name", c.value("name", "execute_code")},
                         {"input", c.value("arguments", json::object())}});
    }
    return {{"id", "msg_fake_" + std::to_string(serial)},
            {"type", "message"},
            {"role", "assistant"},
            {"model", model},
            {"content", std::move(content)},
            {"stop_reason", reply.value("stopReason", calls.empty() ? "end_turn" : "tool_use")},
            {"stop_sequence", nullptr},
            {"usage", {{"input_tokens", in}, {"output_tokens", out}}}};
  }
  json message{{"role", "assistant"}, {"content", text.empty() && !calls.empty() ? json(nullptr) : json(text)}};
  if (!calls.empty()) {
    json wire = json::array();
    int n = 0;
    for (const auto& c : calls) {
      const json& args = c.value("arguments", json::object());
      wire.push_back({{"id", c.value("id", "call_fake_" + std::to_string(serial) + "_" + std::to_string(++n))},
                      {"type", "function"},
                      {"function",
                       {{"name", c.value("name", "execute_code")},
                        {"arguments", args.is_string() ? args.get<std::string>() : args.dump()}}}});
    }
    message["tool_calls"] = std::move(wire);
  }
  return {
      {"id", "chatcmpl-fake-" + std::to_string(serial)},
      {"object", "chat.completion"},
      {"created", 1700000000},
      {"model", model},
      {"choices", json::array({{{"index", 0},
                                {"message", std::move(message)},
                                {"logprobs", nullptr},
                                {"finish_reason", reply.value("stopReason", calls.empty() ? "stop" : "tool_calls")}}})},
      {"usage", {{"prompt_tokens", in}, {"completion_tokens", out}, {"total_tokens", in + out}}}};
}

// What the real APIs check before anything else; nullopt when the request passes.
std::optional<std::pair<int, json>> validate(api which, const fake_request& req, const std::string& key) {
  auto header = [&](const std::string& name) {
    auto it = req.headers.find(name);
    return it == req.headers.end() ? std::string() : it->second;
  };
  if (!key.empty()) {
    std::string sent = which == api::anthropic ? header("x-api-key") : header("authorization");
    std::string expected = which == api::anthropic ? key : "Bearer " + key;
    if (sent != expected) {
      std::string message =
          which == api::anthropic ? "invalid x-api-key: " + sent : "Incorrect API key provided: " + sent + ".";
      return std::pair{
          401, error_body(which, which == api::anthropic ? "authentication_error" : "invalid_request_error", message)};
    }
  }
  if (which == api::anthropic && header("anthropic-version").empty()) {
    return std::pair{400, error_body(which, "invalid_request_error", "anthropic-version: header is required")};
  }
  if (!req.json.is_object()) {
    return std::pair{400,
                     error_body(which, "invalid_request_error", "We could not parse the JSON body of your request.")};
  }
  if (!req.json.contains("model") || !req.json["model"].is_string()) {
    return std::pair{400, error_body(which, "invalid_request_error", "model: Field required")};
  }
  if (!req.json.contains("messages") || !req.json["messages"].is_array() || req.json["messages"].empty()) {
    return std::pair{400, error_body(which, "invalid_request_error", "messages: at least one message is required")};
  }
  if (which == api::anthropic && !req.json.contains("max_tokens")) {
    return std::pair{400, error_body(which, "invalid_request_error", "max_tokens: Field required")};
  }
  return std::nullopt;
}

}  // namespace

struct fake_llm_server::state {
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::thread thread;
  mutable std::mutex mutex;
  std::deque<json> steps;
  std::vector<fake_request> requests;
  std::string api_key;
  std::atomic<int> serial{0};

  using response = http::response<http::string_body>;

  static response make(int status, const json& body, const json& headers) {
    response res{static_cast<http::status>(status), 11};
    res.set(http::field::content_type, "application/json");
    res.set("request-id", "req_fake");
    for (const auto& [name, value] : headers.items())
      res.set(name, value.is_string() ? value.get<std::string>() : value.dump());
    res.body() = body.is_string() ? body.get<std::string>() : body.dump();
    res.keep_alive(false);
    res.prepare_payload();
    return res;
  }

  json control(const fake_request& req, int& status) {
    status = 200;
    std::lock_guard lock(mutex);
    if (req.path == "/_fake/script" && req.method == "POST") {
      if (req.json.is_array()) {
        for (const auto& s : req.json) steps.push_back(s);
      } else if (req.json.is_object()) {
        steps.push_back(req.json);
      } else {
        status = 400;
        return {{"error", "the body must be a step or an array of steps"}};
      }
      return {{"stepsLeft", steps.size()}};
    }
    if (req.path == "/_fake/requests") {
      json out = json::array();
      for (const auto& r : requests) {
        out.push_back({{"method", r.method},
                       {"path", r.path},
                       {"headers", r.headers},
                       {"body", r.json.is_null() ? json(r.body) : r.json}});
      }
      return out;
    }
    if (req.path == "/_fake/reset") {
      steps.clear();
      requests.clear();
      return {{"ok", true}};
    }
    if (req.path == "/_fake/health") return {{"ok", true}, {"stepsLeft", steps.size()}};
    status = 404;
    return {{"error", "unknown control path"}};
  }

  asio::awaitable<void> serve(tcp::socket socket) {
    beast::flat_buffer buffer;
    http::request_parser<http::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    auto [ec, n] = co_await http::async_read(socket, buffer, parser, asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    auto& raw = parser.get();
    fake_request req;
    req.method = std::string(raw.method_string());
    req.path = std::string(raw.target());
    for (const auto& f : raw) {
      std::string name(f.name_string());
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      req.headers[name] = std::string(f.value());
    }
    req.body = raw.body();
    req.json = json::parse(req.body, nullptr, false);
    if (req.json.is_discarded()) req.json = nullptr;

    api which = api_of(req.path);
    if (which == api::control) {
      int status = 200;
      json body = control(req, status);
      co_await write(socket, make(status, body, json::object()));
      co_return;
    }
    json step;
    {
      std::lock_guard lock(mutex);
      requests.push_back(req);
      if (which != api::unknown && !steps.empty()) {
        step = steps.front();
        steps.pop_front();
      }
    }
    if (which == api::unknown) {
      co_await write(
          socket, make(404, error_body(api::openai, "invalid_request_error", "Unknown request URL: POST " + req.path),
                       json::object()));
      co_return;
    }
    if (auto invalid = validate(which, req, api_key_copy())) {
      // A request the API refuses does not consume a step: put it back.
      if (!step.is_null()) {
        std::lock_guard lock(mutex);
        steps.push_front(step);
      }
      co_await write(socket, make(invalid->first, invalid->second, json::object()));
      co_return;
    }
    if (step.is_null()) {
      co_await write(socket, make(400, error_body(which, "invalid_request_error", "fake LLM: no scripted reply left"),
                                  json::object()));
      co_return;
    }
    if (int delay = step.value("delayMs", 0); delay > 0) {
      asio::steady_timer timer(socket.get_executor(), std::chrono::milliseconds(delay));
      co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    json headers = step.value("headers", json::object());
    int serial_no = ++serial;
    if (step.value("drop", false)) {
      beast::error_code ignored;
      socket.shutdown(tcp::socket::shutdown_both, ignored);
      socket.close(ignored);
      co_return;
    }
    if (step.value("malformed", false)) {
      co_await write(socket, make(200, json("{\"id\": \"chatcmpl-broken\", \"choices\": [ {\"mess"), headers));
      co_return;
    }
    if (step.value("truncate", false)) {
      std::string head =
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\nConnection: "
          "close\r\n\r\n{\"id\":\"cut";
      co_await asio::async_write(socket, asio::buffer(head), asio::as_tuple(asio::use_awaitable));
      beast::error_code ignored;
      socket.shutdown(tcp::socket::shutdown_both, ignored);
      co_return;
    }
    if (step.contains("reply")) {
      co_await write(socket, make(200, render_reply(which, step["reply"], req.json, serial_no), headers));
    } else if (step.contains("error")) {
      const json& e = step["error"];
      int status = e.value("status", 500);
      co_await write(
          socket,
          make(status, error_body(which, e.value("type", default_error_type(status)), e.value("message", "fake error")),
               headers));
    } else {
      co_await write(socket, make(step.value("status", 200), step.value("body", json::object()), headers));
    }
  }

  std::string api_key_copy() {
    std::lock_guard lock(mutex);
    return api_key;
  }

  static asio::awaitable<void> write(tcp::socket& socket, response res) {
    co_await http::async_write(socket, res, asio::as_tuple(asio::use_awaitable));
    beast::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_send, ignored);
  }

  asio::awaitable<void> accept_loop() {
    while (true) {
      auto [ec, socket] = co_await acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
      if (ec) co_return;
      asio::co_spawn(ioc, serve(std::move(socket)), asio::detached);
    }
  }
};

fake_llm_server::fake_llm_server(unsigned short port) : state_(std::make_unique<state>()) {
  tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
  state_->acceptor.open(endpoint.protocol());
  state_->acceptor.set_option(asio::socket_base::reuse_address(true));
  state_->acceptor.bind(endpoint);
  state_->acceptor.listen();
  asio::co_spawn(state_->ioc, state_->accept_loop(), asio::detached);
  state_->thread = std::thread([s = state_.get()] { s->ioc.run(); });
}

fake_llm_server::~fake_llm_server() {
  asio::post(state_->ioc, [s = state_.get()] {
    beast::error_code ignored;
    s->acceptor.close(ignored);
    s->ioc.stop();
  });
  state_->thread.join();
}

unsigned short fake_llm_server::port() const {
  return state_->acceptor.local_endpoint().port();
}
std::string fake_llm_server::openai_base_url() const {
  return "http://127.0.0.1:" + std::to_string(port()) + "/v1";
}
std::string fake_llm_server::anthropic_base_url() const {
  return "http://127.0.0.1:" + std::to_string(port());
}

void fake_llm_server::push(const json& steps) {
  std::lock_guard lock(state_->mutex);
  if (steps.is_array()) {
    for (const auto& s : steps) state_->steps.push_back(s);
  } else {
    state_->steps.push_back(steps);
  }
}

void fake_llm_server::require_api_key(const std::string& key) {
  std::lock_guard lock(state_->mutex);
  state_->api_key = key;
}

std::vector<fake_request> fake_llm_server::requests() const {
  std::lock_guard lock(state_->mutex);
  return state_->requests;
}

std::size_t fake_llm_server::steps_left() const {
  std::lock_guard lock(state_->mutex);
  return state_->steps.size();
}

void fake_llm_server::reset() {
  std::lock_guard lock(state_->mutex);
  state_->steps.clear();
  state_->requests.clear();
}

json load_script_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read script file " + path);
  std::stringstream text;
  text << in.rdbuf();
  json script = json::parse(text.str(), nullptr, false);
  if (!script.is_array()) throw std::runtime_error("script file " + path + " is not a JSON array of steps");
  return script;
}

}  // namespace harness::testing
