// Where a user-scoped MCP server's `${secret:NAME}` values come from: the
// acting user's secrets (secrets/secret_store.hpp keeps them sealed in the
// store). The registry asks when it starts a user's instance; a secret the
// user has not set fails that user's call with secret_missing.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "harness/core/error.hpp"

namespace harness::mcp {

// A secret's name: 1-64 letters, digits and '_', not starting with a digit
// (it reads like an environment variable: GITHUB_TOKEN).
inline bool valid_secret_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

class secret_source {
 public:
  virtual ~secret_source() = default;
  // The values of `user`'s secrets among `names`, by name; a name the user
  // has not set is absent. An error when they cannot be read (the store).
  virtual boost::asio::awaitable<result<std::map<std::string, std::string>>> values(std::string user,
                                                                                    std::vector<std::string> names) = 0;
};

}  // namespace harness::mcp
