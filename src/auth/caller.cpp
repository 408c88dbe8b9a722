#include "harness/auth/caller.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace harness::auth {

bool may_act_for(const caller& caller, std::string_view user_id) {
  if (caller.admin) return true;
  return std::find(caller.users.begin(), caller.users.end(), user_id) != caller.users.end();
}

error to_error(user_refusal refusal, const caller& caller, std::string_view user_id) {
  switch (refusal) {
    case user_refusal::user_required:
      return make_error("user_required",
                        fmt::format("key {} acts for {} users, so the request must name the user", caller.key_id,
                                    caller.admin ? std::string("any") : std::to_string(caller.users.size())),
                        "name the user (userId) in the request");
    case user_refusal::user_not_allowed:
      return make_error("user_not_allowed", fmt::format("key {} may not act for user '{}'", caller.key_id, user_id),
                        "use a key made for that user (mcp-harness keys add --user ...)");
  }
  return make_error("user_not_allowed", "unknown refusal");
}

boost::system::result<std::string, user_refusal> resolve_user(const caller& caller,
                                                              const std::optional<std::string>& requested) {
  if (requested) {
    if (!may_act_for(caller, *requested)) return user_refusal::user_not_allowed;
    return *requested;
  }
  if (caller.users.size() != 1) return user_refusal::user_required;
  return caller.users.front();
}

void throw_exception_from_error(const user_refusal& refusal, const boost::source_location&) {
  throw error_exception(to_error(refusal, caller{}));
}

}  // namespace harness::auth
