// OAuth 2.1 for remote MCP servers, as the MCP authorization spec
// (2025-11-25) says. A server's 401 starts discovery (protected resource
// metadata, then authorization server metadata, with the 2025-03-26
// fallbacks); the harness identifies itself with pre-registered
// credentials, a Client ID Metadata Document or dynamic registration; then
// either gets tokens on its own (client_credentials, with a secret or
// private_key_jwt) or, for the authorization code grant (PKCE S256,
// resource indicators), waits for a person: the server's /health entry shows
// `needs_authorization` with an authorizationUrl, and the browser's return to
// GET /oauth/callback completes the flow. Tokens are refreshed before they
// expire and kept in a token store (the app's is a file sealed with the
// vault key).
//
// A user-scoped remote server ("scope": "user") has one authorizer per
// (server, user): each user authorizes with their own account, and their
// tokens are kept per user in the server's store (user_token_store), so
// replicas share them. The issuer pin and the registered client stay per
// server, in the token file.
//
// Thread-safety: everything on the manager's executor (the I/O thread).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/mcp/config.hpp"

namespace harness::net {
class http_client;
}

namespace harness::mcp {

class http_authorizer;

// Where tokens and registered clients are kept between runs, one JSON value
// per server. Implementations must keep them confidential.
class oauth_token_store {
 public:
  virtual ~oauth_token_store() = default;
  // The value saved for `key`, or null.
  virtual result<nlohmann::json> load(const std::string& key) = 0;
  // Saves (null: forgets) the value for `key`.
  virtual status save(const std::string& key, const nlohmann::json& value) = 0;
  // The same for a store that does I/O (a user's tokens in the server's
  // store); by default the ones above.
  virtual boost::asio::awaitable<result<nlohmann::json>> fetch(std::string key);
  virtual boost::asio::awaitable<status> keep(std::string key, nlohmann::json value);
};

// Where user-scoped servers' tokens are kept: one JSON value per (user,
// server), confidential, shared by replicas (the app: the store's
// credentials, sealed with the vault key).
class user_token_store {
 public:
  virtual ~user_token_store() = default;
  // The value kept, or null.
  virtual boost::asio::awaitable<result<nlohmann::json>> load(std::string user, std::string server) = 0;
  // Keeps `value` (null: forgets it).
  virtual boost::asio::awaitable<status> save(std::string user, std::string server, nlohmann::json value) = 0;
};

// Kept in memory only (tests, tools).
std::shared_ptr<oauth_token_store> memory_token_store();

// A JSON file (mode 600, written atomically) whose values pass `seal` on the
// way in and `open` on the way out (the app seals them with the vault key).
std::shared_ptr<oauth_token_store> file_token_store(std::filesystem::path path,
                                                    std::function<nlohmann::json(const nlohmann::json&)> seal,
                                                    std::function<result<nlohmann::json>(const nlohmann::json&)> open);

// Users' tokens kept in memory only (tests, a harness without a store).
std::shared_ptr<user_token_store> memory_user_token_store();

// The store one user's authorizer of a user-scoped server uses: its tokens
// in `users` under (user, server), everything else in `shared`.
std::shared_ptr<oauth_token_store> user_scoped_token_store(std::shared_ptr<oauth_token_store> shared,
                                                           std::shared_ptr<user_token_store> users, std::string user);

struct oauth_options {
  // The harness's GET /oauth/callback as the browser reaches it.
  std::function<std::string()> redirect_uri;
  // How long an authorization URL stays valid once shown.
  std::chrono::seconds authorization_lifetime{900};
  // How the harness names itself in dynamic registration.
  std::string client_name = "mcp-harness";
};

// What a completed authorization was for.
struct oauth_completion {
  std::string server;
  std::string user;  // whose account it was, for a user-scoped server (else empty)
  std::vector<std::string> scopes;
};

class oauth_manager {
 public:
  virtual ~oauth_manager() = default;
  // The authorizer of a remote server (the same one each time for a server
  // name, and a user's instance's user), or null for a server that does not
  // use OAuth (uses_oauth).
  virtual std::shared_ptr<http_authorizer> authorizer_for(const server_config& server) = 0;
  // Completes the authorization a browser came back from, given the query of
  // its GET /oauth/callback: exchanges the code and keeps the tokens. Errors:
  // mcp_oauth_callback_invalid (no such pending authorization, expired, used,
  // or no code), mcp_authorization_failed (the authorization server said no:
  // its error, or the token endpoint's).
  virtual boost::asio::awaitable<result<oauth_completion>> complete(std::map<std::string, std::string> query) = 0;
};

// `clock` gives token expiry, assertion times and the refresh timers; it must outlive the manager.
// `users` keeps users' tokens of user-scoped servers (null: kept in memory only).
std::shared_ptr<oauth_manager> create_oauth_manager(boost::asio::any_io_executor executor, core::clock& clock,
                                                    std::shared_ptr<net::http_client> http,
                                                    std::shared_ptr<oauth_token_store> store, oauth_options options,
                                                    std::shared_ptr<user_token_store> users = nullptr);

// The remote_access (transport.hpp) that gives each server the manager's authorizer.
struct remote_access;
remote_access with_oauth(std::shared_ptr<net::http_client> http, std::shared_ptr<oauth_manager> manager);

}  // namespace harness::mcp
