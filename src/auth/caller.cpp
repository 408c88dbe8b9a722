#include "harness/auth/caller.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace harness::auth {

caller open_caller() {
  return caller{.key_id = {}, .label = {}, .users = {}, .admin = true};
}

bool may_act_for(const caller& caller, std::string_view user_id) {
  if (caller.admin) return true;
  return std::find(caller.users.begin(), caller.users.end(), user_id) != caller.users.end();
}

std::string_view log_id(const caller& caller) {
  return caller.key_id.empty() ? std::string_view("-") : std::string_view(caller.key_id);
}

result<std::string> resolve_user(const caller& caller, const std::optional<std::string>& requested) {
  if (requested) {
    if (!may_act_for(caller, *requested)) {
      return make_error(errc::user_not_allowed,
                        fmt::format("key {} may not act for user '{}'; a key acts only for the users it was made for",
                                    caller.key_id, *requested),
                        "use a key made for that user (mcp-harness keys add --user ...), or an admin key");
    }
    return *requested;
  }
  if (caller.users.size() == 1) return caller.users.front();
  if (caller.key_id.empty()) {
    return make_error(errc::user_required, "'userId' is required: without an API key the request must name the user",
                      "add \"userId\" to the body or ?userId= to the query");
  }
  return make_error(errc::user_required,
                    fmt::format("key {} acts for {} users, so the request must name the user (userId)", caller.key_id,
                                caller.admin ? std::string("any") : std::to_string(caller.users.size())),
                    "add \"userId\" to the body or ?userId= to the query");
}

}  // namespace harness::auth
