// Who is calling: the identity an API key stands for, and the rule for which
// users a request may act for. A user key acts only for the users listed on
// it; an admin key acts for any user. When the server runs open (no keys on a
// loopback host, or AUTH=none) every request has the open caller, which acts
// for any user but has no key. Pure functions, no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/auth/errors.hpp"
#include "harness/core/error.hpp"

namespace harness::auth {

struct caller {
  std::string key_id;              // the key's public id ("key_..."), safe to log; empty for the open caller
  std::string label;               // the key's label, may be empty
  std::vector<std::string> users;  // users a user key may act for; an admin key's default user, if any
  bool admin = false;              // may act for any user (and read the operator routes)
};

// The caller of every request while the server runs open.
caller open_caller();

// True when `caller` may act for `user_id`: an admin, or a user key that lists it.
bool may_act_for(const caller& caller, std::string_view user_id);

// The user a request acts for: `requested` when the caller may act for it;
// when nothing is requested, the key's only user. An admin key with no users
// (or several), and the open caller, must name the user. Errors:
// user_not_allowed (403) naming the key id and the user, user_required (400).
result<std::string> resolve_user(const caller& caller, const std::optional<std::string>& requested);

// "key_ab12..." for log lines and records; "-" for the open caller.
std::string_view log_id(const caller& caller);

}  // namespace harness::auth
