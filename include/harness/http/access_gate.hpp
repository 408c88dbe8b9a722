// Who may call: the check in front of every route. It reads the caller's API
// key (Authorization: Bearer), asks the key store who it stands for, applies
// the route's access rule and the key's rate limit, and answers 401, 403 or
// 429 itself. The server runs open (every request has the open caller) when
// there is no gate, or when the gate may run open while the key file holds
// no key (AUTH=auto on a loopback HOST). See docs/architecture/auth.md.
#pragma once

#include <atomic>
#include <memory>
#include <string_view>
#include <variant>

#include "harness/auth/caller.hpp"
#include "harness/http/message.hpp"
#include "harness/http/router.hpp"

namespace harness::auth {
class key_store;
class rate_limiter;
}  // namespace harness::auth
namespace harness::core {
class metrics_registry;
template <typename>
class family;
class counter;
}  // namespace harness::core

namespace harness::http {

class access_gate {
 public:
  struct options {
    std::shared_ptr<auth::key_store> keys;        // required
    bool open_while_no_keys = false;              // AUTH=auto on a loopback HOST
    std::shared_ptr<auth::rate_limiter> limiter;  // null: no per-key limit
    // harness_auth_refusals_total{reason} and harness_key_requests_total{key,outcome}
    // are registered here at construction; null: no metrics.
    core::metrics_registry* metrics = nullptr;
  };
  explicit access_gate(options opts);

  // The caller of `request` on a route with `access`, or the answer to send
  // instead: 401 key_required / invalid_key with WWW-Authenticate, 403
  // admin_required, 429 rate_limited with Retry-After. An open route is never
  // refused: its caller is the key's when a valid one is sent, else an empty
  // caller (no key id, no users, not admin). Never logs the key.
  std::variant<auth::caller, http_response> admit(route_access access, const http_request& request);

  // "keys" while requests need a key, else "open" (for GET /health). Open
  // lasts only until the key file first holds a key: revoking every key
  // later does not open the server again (it fails closed until a restart).
  std::string_view mode();

 private:
  http_response refuse(error e, std::string_view reason, std::string challenge);

  options options_;
  core::family<core::counter>* refusals_ = nullptr;
  core::family<core::counter>* key_requests_ = nullptr;
  std::atomic<bool> keys_seen_{false};
};

}  // namespace harness::http
