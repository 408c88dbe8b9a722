// Who is calling: the identity an API key stands for, and the rule for which
// users a request may act for. A user key acts only for the users listed on
// it; an admin key acts for any user. Pure functions, no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/system/result.hpp>

#include "harness/core/error.hpp"

namespace harness::auth {

struct caller {
  std::string key_id;              // the key's public id ("key_..."), safe to log
  std::string label;               // the key's label, may be empty
  std::vector<std::string> users;  // users a user key may act for; an admin key's default user, if any
  bool admin = false;              // may act for any user
};

// True when `caller` may act for `user_id`: an admin, or a user key that lists it.
bool may_act_for(const caller& caller, std::string_view user_id);

// Why resolve_user refused; the HTTP layer maps user_required to 400 and
// user_not_allowed to 403.
enum class user_refusal {
  user_required,     // no user named, and the key does not have exactly one
  user_not_allowed,  // the key may not act for the named user
};

// The refusal as the project's error value: code "user_required" or
// "user_not_allowed", a message naming the user and key id (never the key), a hint.
error to_error(user_refusal refusal, const caller& caller, std::string_view user_id = {});

// The user a request acts for: `requested` when the caller may act for it;
// when nothing is requested, the key's only user. An admin key with no users
// (or several) must name the user.
boost::system::result<std::string, user_refusal> resolve_user(const caller& caller,
                                                              const std::optional<std::string>& requested);

// Lets boost::system::result<T, user_refusal>::value() throw (it is found by ADL).
[[noreturn]] void throw_exception_from_error(const user_refusal& refusal, const boost::source_location&);

}  // namespace harness::auth
