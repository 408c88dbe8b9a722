// The user a request acts for, from the caller and the userId it names.
// Every route that acts for a user goes through here, so the rule is in one
// place (docs/architecture/auth.md): a named userId the caller may not act
// for is 403 user_not_allowed; no userId means the key's only user, else 400.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "harness/http/message.hpp"
#include "harness/http/router.hpp"

namespace harness::http {

// The user, or the answer to send instead.
using user_or_answer = std::variant<std::string, http_response>;

// From the JSON body's "userId" (validated like every id).
user_or_answer body_user(const request_context& context);

// From the query's ?userId= (validated like every id).
user_or_answer query_user(const request_context& context);

// The query's ?userId= when given: validated and one the caller may act for.
// nullopt when absent; on refusal, the answer to send.
std::variant<std::optional<std::string>, http_response> named_query_user(const request_context& context);

}  // namespace harness::http
