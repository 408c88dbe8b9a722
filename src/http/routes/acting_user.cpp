#include "acting_user.hpp"

#include "harness/http/errors.hpp"
#include "validation.hpp"

namespace harness::http {
namespace {

user_or_answer resolve(const request_context& context, const std::optional<std::string>& named) {
  auto user = auth::resolve_user(context.caller, named);
  if (!user) return error_response(user.error());
  return std::move(*user);
}

std::optional<std::string> query_value(const request_context& context) {
  auto it = context.request.query.find("userId");
  if (it == context.request.query.end()) return std::nullopt;
  return it->second;
}

}  // namespace

user_or_answer body_user(const request_context& context) {
  std::optional<std::string> named;
  if (context.body.contains("userId")) {
    if (auto bad = check_user_id(context.body)) return std::move(*bad);
    named = context.body["userId"].get<std::string>();
  }
  return resolve(context, named);
}

user_or_answer query_user(const request_context& context) {
  auto named = named_query_user(context);
  if (auto* answer = std::get_if<http_response>(&named)) return std::move(*answer);
  return resolve(context, std::get<std::optional<std::string>>(named));
}

std::variant<std::optional<std::string>, http_response> named_query_user(const request_context& context) {
  auto named = query_value(context);
  if (!named) return std::optional<std::string>();
  if (auto bad = check_user_id(nlohmann::json{{"userId", *named}})) return std::move(*bad);
  auto user = auth::resolve_user(context.caller, named);
  if (!user) return error_response(user.error());
  return named;
}

}  // namespace harness::http
