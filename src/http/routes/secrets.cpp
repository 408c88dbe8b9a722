// GET /secrets, PUT /secrets/{name}, DELETE /secrets/{name}: the acting
// user's secrets (?userId=, checked like every route's; a user key's only
// user by default). A read gives names and times, never a value; a value is
// only ever written.
#include "harness/http/api.hpp"
#include "harness/http/errors.hpp"
#include "harness/http/services.hpp"
#include "harness/secrets/secret_store.hpp"
#include "routes/acting_user.hpp"
#include "routes/task_json.hpp"
#include "validation.hpp"

namespace harness::http {
namespace {

http_response no_secrets() {
  return error_response(make_error(http::errc::secrets_unavailable, "this server keeps no secrets (it has no store)",
                                   "run it with STORE_PATH or STORE_URL"));
}

}  // namespace

boost::asio::awaitable<http_response> handle_list_secrets(const request_context& context) {
  auto user = query_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  if (!context.svc.secrets) co_return no_secrets();
  auto secrets = context.svc.secrets;  // keeps it alive across the await
  const auto& user_id = std::get<std::string>(user);
  auto listed = co_await secrets->list(user_id);
  if (!listed) co_return error_response(listed.error());
  nlohmann::json out = nlohmann::json::array();
  for (const auto& entry : *listed) out.push_back({{"name", entry.name}, {"updatedAt", iso_time(entry.updated_ms)}});
  co_return json_response(200, {{"userId", user_id}, {"secrets", std::move(out)}});
}

boost::asio::awaitable<http_response> handle_put_secret(const request_context& context) {
  auto user = query_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  if (!context.svc.secrets) co_return no_secrets();
  if (auto bad = check_known_fields(context.body, {"value"})) co_return std::move(*bad);
  if (!context.body.contains("value") || !context.body["value"].is_string()) {
    co_return error_response(make_error(http::errc::invalid_body, "\"value\" must be a string: the secret's value",
                                        "send {\"value\": \"...\"}"));
  }
  auto secrets = context.svc.secrets;
  const auto& user_id = std::get<std::string>(user);
  const auto& name = context.params.at("name");
  auto stored = co_await secrets->set(user_id, name, context.body["value"].get<std::string>());
  if (!stored) co_return error_response(stored.error());
  co_return json_response(200, {{"userId", user_id}, {"name", name}, {"stored", true}});
}

boost::asio::awaitable<http_response> handle_delete_secret(const request_context& context) {
  auto user = query_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  if (!context.svc.secrets) co_return no_secrets();
  auto secrets = context.svc.secrets;
  const auto& user_id = std::get<std::string>(user);
  const auto& name = context.params.at("name");
  auto removed = co_await secrets->remove(user_id, name);
  if (!removed) co_return error_response(removed.error());
  co_return json_response(200, {{"userId", user_id}, {"name", name}, {"deleted", true}});
}

}  // namespace harness::http
