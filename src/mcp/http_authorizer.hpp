// What the Streamable HTTP transport asks of authorization: a header to send,
// and what to do when the server refuses it. OAuth (oauth_authorizer.hpp)
// implements it; a server without OAuth has none.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"

namespace harness::mcp {

class http_authorizer {
 public:
  virtual ~http_authorizer() = default;

  // The Authorization header for the next request ("Bearer ..."), refreshed
  // first when the token is about to expire; nullopt: send none.
  virtual boost::asio::awaitable<std::optional<std::string>> authorization() = 0;
  // The header as it is now, without waiting for a renewal (closing a session).
  virtual std::optional<std::string> current() const = 0;

  // The server answered `status` (401 or 403) with these WWW-Authenticate
  // values to a request that carried `sent` (its Authorization header, if
  // any). Success: a new token is in place (perhaps one that came while the
  // request was out), send the request again. Else
  // the error to fail the request with: mcp_needs_authorization when a
  // person must approve access first (the message says where), or
  // mcp_authorization_failed.
  virtual boost::asio::awaitable<status> challenged(long status, std::vector<std::string> www_authenticate,
                                                    std::optional<std::string> sent) = 0;

  // For /health: {"state": "authorized" | "needs_authorization" | "not_authorized" | "failed", "grant",
  // "scopes", "expiresAt", "authorizationUrl" (while a person is asked), "error", ...}.
  virtual nlohmann::json describe() const = 0;

  // Calls `listener` (on the authorizer's executor) whenever the
  // authorization changes: a person approved access, a token came or went, a
  // flow failed. Listeners stay for the authorizer's life: capture weakly.
  virtual void on_change(std::function<void()> listener) = 0;
  // When a pending authorization URL stops being valid (nullopt: none pending).
  virtual std::optional<core::steady_time> pending_until() const = 0;
  // Reads the kept tokens again: true when there are others than those held
  // (another replica's authorization, or its refresh), which are used now,
  // or when a user's tokens are no longer kept (they disconnected through
  // another replica), which are dropped.
  virtual boost::asio::awaitable<bool> reload() = 0;
  // Forgets the tokens, kept ones too, after revoking them where the
  // authorization server can; a pending authorization ends.
  virtual boost::asio::awaitable<void> forget() = 0;
};

// mcp_needs_authorization for a user who has not connected their account to
// the user-scoped server `server`: the link to open (`url`; empty: none yet)
// goes to them, with the call that failed.
error connect_your_account(const std::string& server, const std::string& url);

}  // namespace harness::mcp
