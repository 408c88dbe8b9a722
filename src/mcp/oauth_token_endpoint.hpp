// Talking to an authorization server's endpoints: the token endpoint (an
// authorization code, a refresh token or the client's own credentials for
// tokens), client authentication there (client_secret_basic,
// client_secret_post, none, private_key_jwt), dynamic client registration
// (RFC 7591), and the random values a flow needs (PKCE, state).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/mcp/config.hpp"
#include "harness/net/http_client.hpp"
#include "oauth_metadata.hpp"

namespace harness::mcp {

using form_fields = std::vector<std::pair<std::string, std::string>>;

// Who this harness is at an authorization server.
struct client_identity {
  std::string client_id;
  std::string client_secret;
  std::string auth_method;  // client_secret_basic, client_secret_post, none, private_key_jwt
  std::string private_key_pem;
  std::string signing_algorithm;
  std::string source;        // "pre-registered", "metadata document", "registered" (RFC 7591)
  std::string redirect_uri;  // the redirect URI a registered client was registered with

  nlohmann::json to_json() const;  // for the sealed token store; the key is never stored
  static client_identity from_json(const nlohmann::json& j);
};

struct token_set {
  std::string access_token;
  std::string refresh_token;
  std::vector<std::string> scopes;  // granted (the requested ones when the answer names none)
  std::optional<core::system_time> expires_at;
  core::system_time obtained_at{};
  std::string issuer;  // the authorization server that issued them: they go to no other

  // How long before expiry they are renewed: a minute, or half their life when that is shorter.
  std::chrono::seconds renew_ahead() const;

  nlohmann::json to_json() const;
  static token_set from_json(const nlohmann::json& j);
};

// 32 random bytes, base64url without padding (43 characters): a PKCE code
// verifier, a state value.
std::string random_token();
// S256: base64url(SHA-256(verifier)).
std::string pkce_challenge(const std::string& verifier);

// The method to authenticate with: the configured one, else a secret's best
// match among what the server supports (basic before post), else none.
std::string choose_auth_method(const std::string& configured, const std::string& client_secret,
                               const std::string& private_key, const authorization_server_metadata& server);

// Adds the client's authentication to a token request. Errors:
// mcp_authorization_failed when a private key cannot sign.
status authenticate_client(const client_identity& client, const authorization_server_metadata& server,
                           net::request& request, form_fields& fields, const core::clock& clock);

// POSTs `fields` (grant_type and the rest) to the token endpoint with the
// client's authentication. Errors: mcp_authorization_failed with the
// server's error and error_description (never a token).
boost::asio::awaitable<result<token_set>> request_tokens(net::http_client& http,
                                                         const authorization_server_metadata& server,
                                                         const client_identity& client, form_fields fields,
                                                         const std::vector<std::string>& requested_scopes,
                                                         const core::clock& clock);

// RFC 7009: asks the authorization server to revoke `token` (`hint`:
// "refresh_token" or "access_token"). Errors: mcp_authorization_failed when
// it answers anything but 200, or cannot be reached.
boost::asio::awaitable<status> revoke_token(net::http_client& http, const authorization_server_metadata& server,
                                            const client_identity& client, std::string token, const char* hint,
                                            const core::clock& clock);

// SEP-990: exchanges the user's ID token at their identity provider
// (RFC 8693 token exchange) for an identity assertion (ID-JAG) meant for
// the authorization server `audience` and the resource. Errors:
// mcp_authorization_failed with the identity provider's error.
boost::asio::awaitable<result<std::string>> exchange_id_token(net::http_client& http,
                                                              const identity_provider_config& idp,
                                                              const std::string& audience, const std::string& resource,
                                                              const std::vector<std::string>& scopes);

// RFC 7591 registration of a client for the authorization code grant with
// `redirect_uri`, asking for `auth_method`.
boost::asio::awaitable<result<client_identity>> register_client(
    net::http_client& http, const authorization_server_metadata& server, const std::string& client_name,
    const std::string& redirect_uri, const std::string& auth_method, const std::vector<std::string>& scopes);

}  // namespace harness::mcp
