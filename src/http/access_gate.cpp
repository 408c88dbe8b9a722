#include "harness/http/access_gate.hpp"

#include <string>

#include <fmt/format.h>

#include "harness/auth/api_key.hpp"
#include "harness/auth/key_store.hpp"
#include "harness/auth/rate_limiter.hpp"
#include "harness/core/metrics.hpp"
#include "harness/http/errors.hpp"

namespace harness::http {
namespace {

// RFC 6750 section 3: the challenge names the scheme and realm; a presented
// but unusable token adds error="invalid_token".
constexpr std::string_view realm = "Bearer realm=\"mcp-harness\"";

}  // namespace

access_gate::access_gate(options opts) : options_(std::move(opts)) {
  if (!options_.metrics) return;
  refusals_ = &options_.metrics->counters("harness_auth_refusals_total",
                                          "Requests refused before any key was known, by reason.", {"reason"});
  for (std::string_view reason : {"key_required", "invalid_key"}) refusals_->with({reason});
  key_requests_ =
      &options_.metrics->counters("harness_key_requests_total",
                                  "Requests made with each API key (by key id, never the key), by outcome: admitted, "
                                  "admin_required or rate_limited.",
                                  {"key", "outcome"});
}

std::string_view access_gate::mode() {
  if (!options_.open_while_no_keys || keys_seen_.load(std::memory_order_relaxed)) return "keys";
  if (options_.keys->key_count() == 0) return "open";
  keys_seen_.store(true, std::memory_order_relaxed);
  return "keys";
}

http_response access_gate::refuse(error e, std::string_view reason, std::string challenge) {
  if (refusals_) refusals_->with({reason}).inc();
  auto response = error_response(e);
  response.set_header("WWW-Authenticate", std::move(challenge));
  return response;
}

std::variant<auth::caller, http_response> access_gate::admit(route_access access, const http_request& request) {
  if (mode() == "open") return auth::open_caller();
  if (access == route_access::open) {
    // The probes answer everyone; a valid key (an admin's sees the details)
    // is taken, anything else is no caller at all, never a 401.
    auto header = request.header("Authorization");
    auto token = header ? auth::bearer_token(*header) : std::nullopt;
    auto caller = token ? options_.keys->authenticate(*token) : std::nullopt;
    return caller ? std::move(*caller) : auth::caller{};
  }

  auto header = request.header("Authorization");
  if (!header) {
    return refuse(make_error(auth::errc::key_required, "this server needs an API key for this request",
                             "send Authorization: Bearer <key>; an operator makes keys with mcp-harness keys add"),
                  "key_required", std::string(realm));
  }
  auto token = auth::bearer_token(*header);
  std::optional<auth::caller> caller;
  if (token) caller = options_.keys->authenticate(*token);
  if (!caller) {
    auto message = token ? "the API key is not valid: it is malformed, unknown or revoked"
                         : "the Authorization header must be 'Bearer <key>'";
    return refuse(make_error(auth::errc::invalid_key, message, "send a key that mcp-harness keys list shows"),
                  "invalid_key", fmt::format("{}, error=\"invalid_token\"", realm));
  }

  if (access == route_access::admin && !caller->admin) {
    if (key_requests_) key_requests_->with({caller->key_id, "admin_required"}).inc();
    return error_response(make_error(
        auth::errc::admin_required,
        fmt::format("{} {} is for admin keys; key {} is a user key", request.method, request.path, caller->key_id),
        "use a key made with mcp-harness keys add --admin"));
  }
  if (options_.limiter) {
    auto decision = options_.limiter->acquire(caller->key_id);
    if (!decision.allowed) {
      if (key_requests_) key_requests_->with({caller->key_id, "rate_limited"}).inc();
      auto response = error_response(make_error(
          auth::errc::rate_limited, fmt::format("key {} made more requests than its rate limit allows", caller->key_id),
          fmt::format("retry after {} s (RATE_LIMIT_PER_MINUTE, RATE_LIMIT_BURST)", decision.retry_after.count())));
      response.set_header("Retry-After", std::to_string(decision.retry_after.count()));
      return response;
    }
  }
  if (key_requests_) key_requests_->with({caller->key_id, "admitted"}).inc();
  return std::move(*caller);
}

}  // namespace harness::http
