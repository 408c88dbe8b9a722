// Users' secrets: values a user's own instances of user-scoped MCP servers
// need, such as an API token, written as `${secret:NAME}` in the server's
// env, headers or args. Each is sealed with the vault key (AES-256-GCM,
// pii/vault_seal.hpp) together with its user and name, and kept in the store
// (SQLite, or PostgreSQL so that replicas share them). Reading one back
// checks that it was sealed for that user and name: a row copied to another
// user does not open.
//
// Nothing here hands a value out but values(), which the tool registry asks
// when it starts the user's instance; list() gives names only. Set from the
// command line (secrets_cli.hpp) or over HTTP (PUT /secrets/{name}).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"
#include "harness/mcp/secret_source.hpp"

namespace harness::pii {
class vault_sealer;
}
namespace harness::store {
class task_store;
}

namespace harness::secrets {

// A name is mcp::valid_secret_name's: 1-64 letters, digits and '_', not
// starting with a digit.
using mcp::valid_secret_name;
status check_secret_name(std::string_view name);
// A value is 8 to 16384 bytes of UTF-8 without NUL. The floor is there
// because every tool result of the user's instance is searched for the value
// and the value replaced: a short one would blot out ordinary text.
status check_secret_value(std::string_view value);

struct secret_entry {
  std::string name;
  std::int64_t updated_ms = 0;
};

class secret_store final : public mcp::secret_source {
 public:
  // `changed(user, name)` runs after a set or delete (the registry restarts
  // the user's instances, so they start again with the new value).
  secret_store(std::shared_ptr<store::task_store> store, std::shared_ptr<const pii::vault_sealer> sealer,
               core::clock& clock, std::function<void(const std::string&, const std::string&)> changed = {});

  boost::asio::awaitable<status> set(std::string user, std::string name, std::string value);
  boost::asio::awaitable<result<std::vector<secret_entry>>> list(std::string user);
  // Error secret_not_found when the user has no such secret.
  boost::asio::awaitable<status> remove(std::string user, std::string name);

  boost::asio::awaitable<result<std::map<std::string, std::string>>> values(std::string user,
                                                                            std::vector<std::string> names) override;

 private:
  std::shared_ptr<store::task_store> store_;
  std::shared_ptr<const pii::vault_sealer> sealer_;
  core::clock& clock_;
  std::function<void(const std::string&, const std::string&)> changed_;
};

// The seal of one secret and its opening, shared with the command line.
std::string seal_secret(const pii::vault_sealer& sealer, const std::string& user, const std::string& name,
                        const std::string& value);
result<std::string> open_secret(const pii::vault_sealer& sealer, const std::string& user, const std::string& name,
                                const std::string& sealed);

}  // namespace harness::secrets
