// The instances of user-scoped MCP servers ("scope": "user"): one per
// (server, user), started on that user's first use, stopped after
// MCP_USER_SERVER_IDLE_MS without calls, at most MCP_MAX_USER_SERVERS at once
// over all servers and users. When the cap is reached, the instance idle the
// longest is stopped to make room; when every instance is in a call, the new
// user's call fails with mcp_user_servers_busy (and /health says so).
//
// What one user's instance learns (its tool list) serves the other users of
// the same server until an instance reports a change: listing tools does not
// start an instance for every user. Health and metrics count instances; they
// never carry a user's id.
//
// Use it on the registry's executor, like the registry.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/async_event.hpp"
#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/core/health.hpp"
#include "harness/mcp/config.hpp"
#include "harness/mcp/secret_source.hpp"
#include "secret_fill.hpp"
#include "server_supervisor.hpp"

namespace harness::mcp::detail {

// `server` as `user`'s instance runs it: ${user.id} filled in wherever it is written.
server_config for_user(const server_config& server, const std::string& user);

// One running instance and what the pool knows of its use.
struct user_instance {
  explicit user_instance(const boost::asio::any_io_executor& executor) : started(executor) {}
  std::shared_ptr<server_supervisor> server;  // null when it could not be made (see failure)
  core::steady_time last_used{};
  int calls = 0;              // in flight
  core::async_event started;  // set when its first start has settled
  // Why it was never started (a secret the user has not set): the calls
  // that waited for it get this; the pool has forgotten it already.
  std::optional<error> failure;
  // The user's secret values it was started with, kept inside it; null without any.
  std::shared_ptr<const secret_mask> mask;
  // The user changed a secret: stopped once no call is in it.
  bool stale = false;
};

// Marks a call on an instance: while it lives the instance is busy (never
// stopped for idleness or room); its end starts the idle time again.
class instance_use {
 public:
  instance_use(std::shared_ptr<user_instance> instance, core::clock& clock);
  ~instance_use();
  instance_use(instance_use&& other) noexcept;
  instance_use(const instance_use&) = delete;
  instance_use& operator=(const instance_use&) = delete;
  instance_use& operator=(instance_use&&) = delete;
  server_supervisor& server() const { return *instance_->server; }
  // The user's secret values in this instance; null when it has none.
  const secret_mask* mask() const { return instance_->mask.get(); }
  const std::shared_ptr<const secret_mask>& shared_mask() const { return instance_->mask; }

 private:
  std::shared_ptr<user_instance> instance_;
  core::clock* clock_;
};

class user_servers : public std::enable_shared_from_this<user_servers> {
 public:
  user_servers(boost::asio::any_io_executor executor, core::clock& clock, std::vector<server_config> servers,
               client_limits limits, user_server_limits user_limits, remote_access remote,
               std::shared_ptr<secret_source> secrets = nullptr);

  // Starts the loop that stops idle instances; stop() ends it and every instance.
  void start();
  boost::asio::awaitable<void> stop();

  bool has(const std::string& server) const { return templates_.count(server) != 0; }
  std::vector<std::string> names() const;

  // `user`'s instance of `server`, started (and its start waited for) when
  // the user has none; the returned use keeps it busy. Errors: a user id
  // that is not safe to write into a command line or path,
  // mcp_user_servers_busy when the cap is reached and no instance is idle,
  // secret_missing when the server names a secret the user has not set.
  boost::asio::awaitable<result<instance_use>> use(std::string server, std::string user);

  // Starts `user`'s instances of the servers whose tools are not known yet,
  // so a listing can show them (bounded by each start's timeout).
  boost::asio::awaitable<void> learn_tools(std::string user);

  // The tools of `server` as `user` sees them: from the user's ready
  // instance, else as last learned from any instance (empty when none has run).
  const std::vector<nlohmann::json>& tools(const std::string& server, const std::string& user);

  // `user`'s secrets changed: each of the user's instances stops (now, or
  // when its calls end), so the next call starts one with the new values.
  void restart_user(const std::string& user);

  // The user-scoped remote servers that use OAuth, and `user`'s connection
  // to one: {"server", "state": "connected" | "needs_authorization" |
  // "error", "authorizationUrl" and "expiresAt" while a link is open,
  // "scopes", "error"}.
  std::vector<std::string> oauth_servers() const;
  boost::asio::awaitable<nlohmann::json> connection(std::string server, std::string user);
  // Starts `user`'s instance of `server` (and so the authorization, when
  // the user has none), then says where it stands (connection()).
  boost::asio::awaitable<result<nlohmann::json>> connect(std::string server, std::string user);
  // Stops `user`'s instance of `server` and forgets their tokens, revoking
  // them where the authorization server can.
  boost::asio::awaitable<harness::status> disconnect(std::string server, std::string user);

  // One health source per user-scoped server ("mcp.<server>") and
  // "mcp.user_instances" for the cap; status() of one server.
  core::health_sources health_sources() const;
  nlohmann::json status(const std::string& server) const;
  std::size_t instance_count() const { return instances_.size(); }

 private:
  using instance_key = std::pair<std::string, std::string>;  // server, user
  boost::asio::awaitable<result<std::shared_ptr<user_instance>>> launch(const std::string& server,
                                                                        const std::string& user);
  // The user's config of `server` with its secrets filled in; sets instance.mask.
  boost::asio::awaitable<result<server_config>> configure(const std::string& server, const std::string& user,
                                                          user_instance& instance);
  // An instance waiting for its user's authorization, when there are tokens
  // now (the user approved, here or through another replica): stopped, so
  // the call starts one that uses them at once. True when it was.
  boost::asio::awaitable<bool> retire_if_authorized_elsewhere(const std::string& server, const std::string& user,
                                                              const std::shared_ptr<user_instance>& instance);
  // The authorizer of `user`'s instance of `server`: its running instance's, else a fresh one.
  std::shared_ptr<http_authorizer> authorizer_of(const std::string& server, const std::string& user);
  // The instance could not be started: forgotten, and its waiters told why.
  void abandon(const std::string& server, const std::string& user, const std::shared_ptr<user_instance>& instance,
               const error& why);
  // Stops the instance idle the longest to make room; false when all are in a call.
  bool evict_one();
  void retire(std::map<instance_key, std::shared_ptr<user_instance>>::iterator it, const char* why);
  boost::asio::awaitable<void> finish_retiring(std::shared_ptr<user_instance> instance);
  boost::asio::awaitable<void> reap_loop();
  void remember_tools(const std::string& server, const user_instance& instance);

  boost::asio::any_io_executor executor_;
  core::clock& clock_;
  std::map<std::string, server_config> templates_;
  std::map<std::string, std::shared_ptr<bool>> eras_;  // per server: it spoke the 2025 era (server_supervisor)
  client_limits limits_;
  user_server_limits user_limits_;
  remote_access remote_;
  std::shared_ptr<secret_source> secrets_;
  std::map<instance_key, std::shared_ptr<user_instance>> instances_;
  std::map<std::string, std::vector<nlohmann::json>> learned_;  // per server: the last tool list an instance had
  std::size_t refused_ = 0;                                     // calls refused at the cap
  std::size_t stopped_idle_ = 0;
  std::size_t evicted_ = 0;
  bool stopping_ = false;
  std::size_t retiring_ = 0;                        // instances out of the map whose stop is still running
  std::unique_ptr<core::async_event> all_retired_;  // made by stop() while some are
  std::unique_ptr<core::timer> reaper_;
};

}  // namespace harness::mcp::detail
