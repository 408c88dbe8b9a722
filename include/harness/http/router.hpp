// The route table: (method, path pattern) -> handler. Patterns are literal
// segments, `{name}` for one segment, and a final `{name...}` for the rest of
// the path: "/tasks/{id}/files/{path...}".
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/auth/caller.hpp"
#include "harness/http/message.hpp"

namespace harness::http {

struct services;
using route_params = std::map<std::string, std::string>;

// What a handler gets. `body` is the parsed JSON body for routes that take one
// (the dispatcher has already answered 415/400 otherwise), else null.
// `caller` is who sent the request: the API key's identity, or the open
// caller when the server runs without keys (src/http/access.cpp).
struct request_context {
  const http_request& request;
  const route_params& params;
  services& svc;
  const nlohmann::json& body;
  const auth::caller& caller;
};

// Handlers are plain functions: everything they need comes in the context.
// An exception that escapes becomes a 500 whose body carries no internals.
using handler = std::function<http_response(const request_context&)>;
// For handlers that wait on I/O (a sandbox, the agent): the context stays
// valid until the returned awaitable completes.
using async_handler = std::function<boost::asio::awaitable<http_response>(const request_context&)>;

// Who may call a route. Every route but the health probes needs a caller (an
// API key, unless the server runs open); the operator routes need an admin key.
enum class route_access { open, caller, admin };

// Exactly one of handle / handle_async is set.
struct route {
  std::string method;
  std::string pattern;
  handler handle;
  bool json_body = false;  // the body is read by parse_json_body (request_body.hpp) before the handler runs
  async_handler handle_async = nullptr;
  route_access access = route_access::caller;
  // The handler checks Origin itself, in every mode and with its own answer
  // (/mcp: MCP_ALLOWED_ORIGINS, JSON-RPC errors); the dispatcher's open-mode check skips it.
  bool checks_origin = false;
};

class router {
 public:
  explicit router(std::vector<route> routes);

  struct match_result {
    const route* found = nullptr;      // set on a full match
    route_params params;               // values of {name} segments
    std::vector<std::string> allowed;  // methods the path accepts (for 405), when found is null
  };
  // HEAD matches a GET route. `allowed` is empty when no pattern matches the path (404).
  match_result match(const std::string& method, const std::string& path) const;

  // Every route, in table order (tests walk them all).
  const std::vector<route>& routes() const { return routes_; }

 private:
  std::vector<route> routes_;
};

}  // namespace harness::http
