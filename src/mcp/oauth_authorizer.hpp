// OAuth for one remote MCP server: its discovery, its client identity, its
// tokens and the authorization a person is asked for. The transport asks it
// for a header and tells it of 401s and 403s (http_authorizer); the manager
// hands it the browser's return (complete).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "harness/core/async_signal.hpp"
#include "harness/mcp/oauth.hpp"
#include "http_authorizer.hpp"
#include "oauth_metadata.hpp"
#include "oauth_token_endpoint.hpp"

namespace harness::mcp {

class oauth_authorizer final : public http_authorizer, public std::enable_shared_from_this<oauth_authorizer> {
 public:
  oauth_authorizer(boost::asio::any_io_executor executor, core::clock& clock, server_config server,
                   std::shared_ptr<net::http_client> http, std::shared_ptr<oauth_token_store> store,
                   oauth_options options);

  boost::asio::awaitable<std::optional<std::string>> authorization() override;
  std::optional<std::string> current() const override;
  boost::asio::awaitable<status> challenged(long status, std::vector<std::string> www_authenticate,
                                            std::optional<std::string> sent) override;
  nlohmann::json describe() const override;
  void on_change(std::function<void()> listener) override;
  std::optional<core::steady_time> pending_until() const override;
  boost::asio::awaitable<bool> reload() override;
  boost::asio::awaitable<void> forget() override;

  // True when `state` is this server's pending authorization (constant-time compare).
  bool owns_state(const std::string& state) const;
  // The browser came back with a code (or the server's error) for our pending authorization.
  boost::asio::awaitable<result<oauth_completion>> complete(const std::map<std::string, std::string>& query);

  const std::string& server_name() const { return server_.name; }

 private:
  // What a person is asked to approve, and everything the code it brings
  // back is redeemed with: the same authorization server, client and
  // resource, whatever discovery finds meanwhile.
  struct pending_authorization {
    std::string state;
    std::string verifier;
    std::string url;
    std::vector<std::string> scopes;
    std::string redirect_uri;
    authorization_server_metadata server;
    client_identity client;
    std::string resource;
    core::steady_time expires;
    core::system_time expires_at;
  };

  // One flow at a time: discovery, refresh and token requests are not run
  // twice by requests that fail together.
  class flow_lock;

  // Reads the tokens kept (by an earlier run, or another replica) once, before first use.
  boost::asio::awaitable<void> ensure_loaded();
  // The tokens kept now (nullopt: none); an error when they cannot be read.
  boost::asio::awaitable<result<std::optional<token_set>>> kept_tokens();
  // The tokens kept now, when they differ from the ones held.
  boost::asio::awaitable<std::optional<token_set>> newer_kept_tokens();
  // Revokes the tokens held where the authorization server can (best effort).
  boost::asio::awaitable<void> revoke();
  boost::asio::awaitable<harness::status> discover(const std::optional<std::string>& resource_metadata);
  boost::asio::awaitable<result<nlohmann::json>> fetch_json(const std::string& url);
  // The first of `urls` that answers 200 (with a JSON object): its URL and
  // document; nullopt when none does. A failed request or a body that is not a
  // JSON object ends the search with that error.
  struct found_document {
    std::string url;
    nlohmann::json doc;
  };
  boost::asio::awaitable<result<std::optional<found_document>>> first_document(std::vector<std::string> urls);
  // Who this harness is at the authorization server (see mcp.md). A client
  // registered for another redirect URI serves refreshes, not new authorizations.
  boost::asio::awaitable<harness::status> ensure_client(bool for_new_authorization = false);
  boost::asio::awaitable<harness::status> refresh();
  // The grants that need no person: client_credentials, identity_assertion.
  boost::asio::awaitable<harness::status> token_grant(const std::vector<std::string>& scopes);
  harness::status ask_person(std::vector<std::string> scopes, bool step_up);
  std::vector<std::string> scopes_for(const std::optional<std::string>& challenge_scope, bool step_up) const;
  // Refuses an issuer other than the pinned one (oauth.issuer, else the first found); pins the first.
  harness::status check_issuer_pin(const std::string& issuer);
  bool grant_is_code() const {
    return !server_.oauth || server_.oauth->grant == oauth_config::grant_type::authorization_code;
  }
  // New tokens from `issuer`; `from_person`: they answer the pending authorization.
  boost::asio::awaitable<void> take_tokens(token_set tokens, const std::string& issuer, bool from_person);
  // Tokens another replica kept: held, and nothing written back.
  void adopt_tokens(token_set tokens);
  boost::asio::awaitable<void> forget_tokens();
  boost::asio::awaitable<void> persist();
  // A user-scoped server's authorizer: its person is that user, not an operator.
  bool for_a_user() const { return !server_.user.empty(); }
  void changed();
  void schedule_refresh(std::chrono::seconds at_least = std::chrono::seconds(1));
  error fail(error e);

  boost::asio::any_io_executor executor_;
  server_config server_;
  oauth_config config_;
  net::url_parts url_;
  std::shared_ptr<net::http_client> http_;
  std::shared_ptr<oauth_token_store> store_;
  oauth_options options_;
  core::clock& clock_;

  std::optional<protected_resource_metadata> resource_metadata_;
  std::optional<authorization_server_metadata> server_metadata_;
  std::optional<client_identity> client_;
  // The client the kept tokens were issued to, and by which issuer: tokens
  // are refreshed by the client they belong to.
  std::optional<client_identity> kept_client_;
  std::string kept_client_issuer_;
  bool loaded_ = false;
  std::optional<token_set> tokens_;
  std::optional<pending_authorization> pending_;
  std::vector<std::string> requested_scopes_;  // what the last authorization asked for
  std::string last_error_;
  int step_ups_ = 0;  // authorizations for more scopes since the last that worked

  bool busy_ = false;
  core::async_signal flow_done_;
  std::vector<std::function<void()>> listeners_;
  std::unique_ptr<core::timer> refresh_timer_;
};

}  // namespace harness::mcp
