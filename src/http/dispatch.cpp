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
  const route* matched = nullptr;
  route_params params;
  nlohmann::json body;
  auth::caller caller;
  request_context context(const http_request& request, services& svc) const {
    return {request, params, svc, body, caller};
  }
};

// While the server runs open, any page the user's browser shows could send
// requests to it; only the server's own pages (the dashboard) may. Routes
// open to everyone (the probes, the dashboard's files, the OAuth callback)
// hold no user data and change nothing a page could use. With keys, a page
// has no key to send. /mcp checks Origin itself, in every mode, as MCP asks.
std::optional<http_response> refuse_foreign_origin(const route& r, services& svc, const http_request& request) {
  if (r.access == route_access::open || r.checks_origin) return std::nullopt;
  if (svc.access && svc.access->mode() != "open") return std::nullopt;
  auto origin = request.header("Origin");
  if (!origin || svc.sources.same_origin(*origin)) return std::nullopt;
  return error_response(make_error(
      http::errc::origin_not_allowed,
      fmt::format("a page from {} may not call this server while it runs without API keys", origin->substr(0, 100)),
      "call it from the dashboard, or from a program that sends no Origin; or make an API key (mcp-harness keys "
      "add) and send it"));
}

// Routing (404/405), who is calling (401/403/429) and the JSON body
// (415/400) for a request `match` found the route of: the answer when the
// request stops here, else nullopt and `out` filled in.
std::optional<http_response> admit_request(router::match_result match, services& svc, const http_request& request,
                                           dispatch_info* info, admitted_request& out) {
  if (match.found && info) info->route = match.found->pattern;
  // Host before anything else, 404s included: a rebound name learns nothing.
  if (auto refused = svc.sources.check_host(request.header("Host"))) return error_response(*refused);
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
  if (auto refused = refuse_foreign_origin(r, svc, request)) return refused;
  // Who is calling comes before the body: an unknown caller learns nothing
  // from the server's reading of what it sent.
  if (svc.access) {
    auto admitted = svc.access->admit(r.access, request);
    if (auto* refused = std::get_if<http_response>(&admitted)) return std::move(*refused);
    out.caller = std::move(std::get<auth::caller>(admitted));
  } else {
    out.caller = auth::open_caller();
  }
  if (info) info->key_id = out.caller.key_id;
  out.matched = &r;
  out.params = std::move(match.params);
  if (r.json_body) return parse_json_body(request, out.body);
  return std::nullopt;
}

// The last-resort 500: what escaped a handler is logged under the request id
// and never shown to the client.
http_response internal_error(const http_request& request, std::string_view failure) {
  core::log_for(spdlog::level::err, request.request_id, "unhandled exception in {} {}: {}", request.method,
                request.path, failure);
  return error_response(core::errc::internal_error,
                        "the server failed to handle this request; it has been logged under the request id");
}

http_response with_request_id(http_response response, const http_request& request) {
  response.set_header("X-Request-Id", request.request_id);
  return response;
}

}  // namespace

namespace {

// dispatch_now() for a route already found; `match` is left as it was when
// the route's handler waits (nullopt), so dispatch() need not find it again.
std::optional<http_response> answer_now(router::match_result& match, services& svc, const http_request& request,
                                        dispatch_info* info) {
  try {
    if (match.found && match.found->handle_async) return std::nullopt;
    admitted_request admitted;
    auto refused = admit_request(std::move(match), svc, request, info, admitted);
    if (refused) return with_request_id(std::move(*refused), request);
    return with_request_id(admitted.matched->handle(admitted.context(request, svc)), request);
  } catch (const std::exception& e) {
    return with_request_id(internal_error(request, e.what()), request);
  } catch (...) {
    return with_request_id(internal_error(request, "non-standard exception"), request);
  }
}

}  // namespace

std::optional<http_response> dispatch_now(const router& routes, services& svc, const http_request& request,
                                          dispatch_info* info) {
  auto match = routes.match(request.method, request.path);
  return answer_now(match, svc, request, info);
}

boost::asio::awaitable<http_response> dispatch(const router& routes, services& svc, const http_request& request,
                                               dispatch_info* info) {
  auto match = routes.match(request.method, request.path);
  if (auto answer = answer_now(match, svc, request, info)) co_return std::move(*answer);
  // The route's handler waits: the same steps, in a coroutine.
  http_response response;
  std::string failure;
  try {
    admitted_request admitted;
    auto refused = admit_request(std::move(match), svc, request, info, admitted);
    if (refused) {
      response = std::move(*refused);
    } else {
      auto context = admitted.context(request, svc);
      response = co_await admitted.matched->handle_async(context);
    }
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "non-standard exception";
  }
  if (!failure.empty()) response = internal_error(request, failure);
  co_return with_request_id(std::move(response), request);
}

}  // namespace harness::http
