#include "dispatch.hpp"

#include <exception>

#include <fmt/format.h>

#include "harness/core/logging.hpp"
#include "harness/http/access_gate.hpp"
#include "harness/http/errors.hpp"
#include "request_body.hpp"

namespace harness::http {
namespace {

boost::asio::awaitable<http_response> route_request(const router& routes, services& svc, const http_request& request,
                                                    dispatch_info* info) {
  auto match = routes.match(request.method, request.path);
  if (match.found && info) info->route = match.found->pattern;
  if (!match.found) {
    if (match.allowed.empty()) {
      co_return error_response(
          http::errc::not_found,
          fmt::format("no route for {}; see the API reference in docs/API_EXAMPLES.md", request.path));
    }
    auto allow = fmt::format("{}", fmt::join(match.allowed, ", "));
    auto response = error_response(http::errc::method_not_allowed,
                                   fmt::format("{} does not accept {}; use {}", request.path, request.method, allow));
    response.set_header("Allow", allow);
    co_return response;
  }
  const route& r = *match.found;
  // Who is calling comes before the body: an unknown caller learns nothing
  // from the server's reading of what it sent.
  std::variant<auth::caller, http_response> admitted = auth::open_caller();
  if (svc.access) admitted = svc.access->admit(r.access, request);
  if (auto* refused = std::get_if<http_response>(&admitted)) co_return std::move(*refused);
  const auto& caller = std::get<auth::caller>(admitted);
  if (info) info->key_id = caller.key_id;
  nlohmann::json body;
  if (r.json_body) {
    if (auto refused = parse_json_body(request, body)) co_return *refused;
  }
  request_context context{request, match.params, svc, body, caller};
  if (r.handle_async) co_return co_await r.handle_async(context);
  co_return r.handle(context);
}

}  // namespace

boost::asio::awaitable<http_response> dispatch(const router& routes, services& svc, const http_request& request,
                                               dispatch_info* info) {
  http_response response;
  std::string failure;
  try {
    response = co_await route_request(routes, svc, request, info);
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "non-standard exception";
  }
  if (!failure.empty()) {
    core::log_for(spdlog::level::err, request.request_id, "unhandled exception in {} {}: {}", request.method,
                  request.path, failure);
    response = error_response(core::errc::internal_error,
                              "the server failed to handle this request; it has been logged under the request id");
  }
  response.set_header("X-Request-Id", request.request_id);
  co_return response;
}

}  // namespace harness::http
