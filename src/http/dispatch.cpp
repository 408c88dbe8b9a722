#include "dispatch.hpp"

#include <exception>

#include <fmt/format.h>

#include "harness/core/logging.hpp"
#include "harness/http/access_gate.hpp"
#include "harness/http/errors.hpp"
#include "request_body.hpp"

namespace harness::http {
namespace {

// A request that passed routing and admission: what its handler is given.
// The handler's context refers to these, so they live until it returns.
struct admitted_request {
  const route* matched;
  route_params params;
  nlohmann::json body;
  auth::caller caller;
};

// Routing (404/405), who is calling (401/403/429) and the JSON body
// (415/400): the answer when the request stops here. A plain function, so a
// request costs no coroutine frame of its own until a handler has to wait.
std::variant<http_response, admitted_request> admit_request(const router& routes, services& svc,
                                                            const http_request& request, dispatch_info* info) {
  auto match = routes.match(request.method, request.path);
  if (match.found && info) info->route = match.found->pattern;
  if (!match.found) {
    if (match.allowed.empty()) {
      return error_response(
          http::errc::not_found,
          fmt::format("no route for {}; see the API reference in docs/API_EXAMPLES.md", request.path));
    }
    auto allow = fmt::format("{}", fmt::join(match.allowed, ", "));
    auto response = error_response(http::errc::method_not_allowed,
                                   fmt::format("{} does not accept {}; use {}", request.path, request.method, allow));
    response.set_header("Allow", allow);
    return response;
  }
  const route& r = *match.found;
  // Who is calling comes before the body: an unknown caller learns nothing
  // from the server's reading of what it sent.
  std::variant<auth::caller, http_response> admitted = auth::open_caller();
  if (svc.access) admitted = svc.access->admit(r.access, request);
  if (auto* refused = std::get_if<http_response>(&admitted)) return std::move(*refused);
  auto& caller = std::get<auth::caller>(admitted);
  if (info) info->key_id = caller.key_id;
  admitted_request out{&r, std::move(match.params), nullptr, std::move(caller)};
  if (r.json_body) {
    if (auto refused = parse_json_body(request, out.body)) return std::move(*refused);
  }
  return out;
}

}  // namespace

boost::asio::awaitable<http_response> dispatch(const router& routes, services& svc, const http_request& request,
                                               dispatch_info* info) {
  http_response response;
  std::string failure;
  try {
    auto admitted = admit_request(routes, svc, request, info);
    if (auto* refused = std::get_if<http_response>(&admitted)) {
      response = std::move(*refused);
    } else {
      auto& ready = std::get<admitted_request>(admitted);
      request_context context{request, ready.params, svc, ready.body, ready.caller};
      if (ready.matched->handle_async) {
        response = co_await ready.matched->handle_async(context);
      } else {
        response = ready.matched->handle(context);
      }
    }
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
