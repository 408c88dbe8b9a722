// GET /me: the identity behind the request's key. The dashboard signs in with
// it: a wrong key gets the gate's 401 before this runs, and a server running
// open answers with "auth": "open" and no key.
#include "harness/http/access_gate.hpp"
#include "harness/http/api.hpp"
#include "harness/http/services.hpp"

namespace harness::http {

http_response handle_me(const request_context& context) {
  const auto& caller = context.caller;
  nlohmann::json body{{"auth", context.svc.access ? context.svc.access->mode() : "open"},
                      {"keyId", caller.key_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(caller.key_id)},
                      {"label", caller.label},
                      {"users", caller.users},
                      {"admin", caller.admin}};
  auto response = json_response(200, body);
  response.set_header("Cache-Control", "no-store");
  return response;
}

}  // namespace harness::http
