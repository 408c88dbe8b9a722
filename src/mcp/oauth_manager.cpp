// The OAuth manager: one authorizer per remote server that uses OAuth (per
// user for a user-scoped one), and the way back from the browser (which
// pending authorization a callback's state belongs to).
#include <map>

#include "harness/mcp/errors.hpp"
#include "harness/mcp/oauth.hpp"
#include "harness/mcp/transport.hpp"
#include "oauth_authorizer.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;

class oauth_manager_impl final : public oauth_manager {
 public:
  oauth_manager_impl(asio::any_io_executor executor, core::clock& clock, std::shared_ptr<net::http_client> http,
                     std::shared_ptr<oauth_token_store> store, oauth_options options,
                     std::shared_ptr<user_token_store> users)
      : executor_(std::move(executor)),
        clock_(clock),
        http_(std::move(http)),
        store_(std::move(store)),
        users_(std::move(users)),
        options_(std::move(options)) {}

  std::shared_ptr<http_authorizer> authorizer_for(const server_config& server) override {
    if (!uses_oauth(server)) return nullptr;
    forget_unused();
    auto& slot = authorizers_[{server.name, server.user}];
    if (!slot) {
      auto store = server.user.empty() ? store_ : user_scoped_token_store(store_, users_, server.user);
      slot = std::make_shared<oauth_authorizer>(executor_, clock_, server, http_, std::move(store), options_);
    }
    return slot;
  }

  asio::awaitable<result<oauth_completion>> complete(std::map<std::string, std::string> query) override {
    const auto state = query.find("state");
    if (state == query.end() || state->second.empty()) {
      co_return make_error(mcp::errc::oauth_callback_invalid, "the authorization response has no state",
                           "open the authorizationUrl from GET /health; do not call /oauth/callback yourself");
    }
    for (auto& [key, slot] : authorizers_) {
      if (!slot->owns_state(state->second)) continue;
      auto authorizer = slot;  // the map may change while it completes
      co_return co_await authorizer->complete(query);
    }
    co_return make_error(mcp::errc::oauth_callback_invalid,
                         "no authorization is waiting for this response (it expired, was used, or was replaced)",
                         "open the authorizationUrl that GET /health shows now");
  }

 private:
  asio::any_io_executor executor_;
  core::clock& clock_;
  std::shared_ptr<net::http_client> http_;
  // A user's authorizer that no instance holds and no person is asked
  // through: its tokens are in the store, read again by the next instance.
  void forget_unused() {
    for (auto it = authorizers_.begin(); it != authorizers_.end();) {
      const bool users = !it->first.second.empty();
      if (users && it->second.use_count() == 1 && !it->second->pending_until()) {
        it = authorizers_.erase(it);
      } else {
        ++it;
      }
    }
  }

  std::shared_ptr<oauth_token_store> store_;
  std::shared_ptr<user_token_store> users_;
  oauth_options options_;
  // Per (server, user): the user is empty for a shared server.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<oauth_authorizer>> authorizers_;
};

}  // namespace

std::shared_ptr<oauth_manager> create_oauth_manager(asio::any_io_executor executor, core::clock& clock,
                                                    std::shared_ptr<net::http_client> http,
                                                    std::shared_ptr<oauth_token_store> store, oauth_options options,
                                                    std::shared_ptr<user_token_store> users) {
  if (!store) store = memory_token_store();
  if (!users) users = memory_user_token_store();
  return std::make_shared<oauth_manager_impl>(std::move(executor), clock, std::move(http), std::move(store),
                                              std::move(options), std::move(users));
}

remote_access with_oauth(std::shared_ptr<net::http_client> http, std::shared_ptr<oauth_manager> manager) {
  remote_access out;
  out.http = std::move(http);
  out.authorizer_for = [manager = std::move(manager)](const server_config& server) {
    return manager->authorizer_for(server);
  };
  return out;
}

}  // namespace harness::mcp
