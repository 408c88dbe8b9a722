#include "harness/http/dispatch.hpp"

#include <exception>

#include <fmt/format.h>

#include "harness/core/logging.hpp"

namespace harness::http {
namespace {

bool is_json_content_type(std::string_view value) {
  // "application/json" with optional parameters ("; charset=utf-8").
  auto semicolon = value.find(';');
  std::string_view type = value.substr(0, semicolon);
  while (!type.empty() && type.back() == ' ') type.remove_suffix(1);
  return iequals(type, "application/json");
}

boost::asio::awaitable<http_response> route_request(const router& routes, services& svc,
                                                   const http_request& request, std::string_view* matched_pattern) {
  auto match = routes.match(request.method, request.path);
  if (match.found && matched_pattern) *matched_pattern = match.found->pattern;
  if (!match.found) {
    if (match.allowed.empty()) {
      co_return error_response(404, "not_found",
                            fmt::format("no route for {}; see the API reference in docs/API_EXAMPLES.md", request.path));
    }
    auto allow = fmt::format("{}", fmt::join(match.allowed, ", "));
    auto response = error_response(
        405, "method_not_allowed", fmt::format("{} does not accept {}; use {}", request.path, request.method, allow));
    response.set_header("Allow", allow);
    co_return response;
  }
  const route& r = *match.found;
  nlohmann::json body;
  if (r.json_body) {
    auto content_type = request.header("Content-Type");
    if (!content_type || !is_json_content_type(*content_type)) {
      co_return error_response(415, "unsupported_media_type",
                            "the body must be JSON: send Content-Type: application/json");
    }
    body = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded()) {
      co_return error_response(400, "malformed_json", "the body is not valid JSON; check quoting and commas");
    }
    if (!body.is_object()) {
      co_return error_response(400, "invalid_body", "the body must be a JSON object");
    }
  }
  request_context context{request, match.params, svc, body};
  if (r.handle_async) co_return co_await r.handle_async(context);
  co_return r.handle(context);
}

}  // namespace

boost::asio::awaitable<http_response> dispatch(const router& routes, services& svc, const http_request& request,
                                               std::string_view* matched_pattern) {
  http_response response;
  std::string failure;
  try {
    response = co_await route_request(routes, svc, request, matched_pattern);
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "non-standard exception";
  }
  if (!failure.empty()) {
    core::log_for(spdlog::level::err, request.request_id, "unhandled exception in {} {}: {}", request.method,
                  request.path, failure);
    response = error_response(500, "internal_error",
                              "the server failed to handle this request; it has been logged under the request id");
  }
  response.set_header("X-Request-Id", request.request_id);
  co_return response;
}

}  // namespace harness::http
