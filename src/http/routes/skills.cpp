// GET /skills?userId=, GET /skills/{userId}/{name}, GET /skills/{userId}/{name}/files/{path...},
// DELETE /skills/{userId}/{name}. The library reads files or, with STORE_URL,
// PostgreSQL: both block, so every call runs on the blocking pool, never on
// the I/O thread.
#include "acting_user.hpp"
#include "harness/core/run_blocking.hpp"
#include "harness/http/api.hpp"
#include "harness/http/errors.hpp"
#include "harness/http/services.hpp"
#include "harness/skills/skill_library.hpp"

namespace harness::http {
namespace {

http_response no_library() {
  return error_response(http::errc::skills_unavailable,
                        "this server keeps no skill library; set SKILLS_DIR and restart");
}

// The skill named in the path is visible only when the caller may act for
// its user; otherwise the answer is the library's own "no such skill", so
// which users have which skills cannot be probed.
std::optional<http_response> hidden_skill(const request_context& context) {
  if (auth::may_act_for(context.caller, context.params.at("userId"))) return std::nullopt;
  return error_response(::harness::skills::no_such_skill(context.params.at("name")));
}

}  // namespace

boost::asio::awaitable<http_response> handle_list_skills(const request_context& context) {
  auto user = query_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  if (!context.svc.skills) co_return no_library();
  const auto& user_id = std::get<std::string>(user);
  auto library = context.svc.skills;  // keeps it alive across the await
  auto skills = co_await core::run_blocking(context.svc.blocking, [&] { return library->list(user_id); });
  if (!skills) co_return error_response(skills.error());
  co_return json_response(200, {{"userId", user_id}, {"skills", std::move(*skills)}});
}

boost::asio::awaitable<http_response> handle_get_skill(const request_context& context) {
  if (auto hidden = hidden_skill(context)) co_return std::move(*hidden);
  if (!context.svc.skills) co_return no_library();
  auto library = context.svc.skills;
  auto skill = co_await core::run_blocking(
      context.svc.blocking, [&] { return library->get(context.params.at("userId"), context.params.at("name")); });
  if (!skill) co_return error_response(skill.error());
  co_return json_response(200, *skill);
}

boost::asio::awaitable<http_response> handle_get_skill_file(const request_context& context) {
  if (auto hidden = hidden_skill(context)) co_return std::move(*hidden);
  if (!context.svc.skills) co_return no_library();
  auto library = context.svc.skills;
  auto text = co_await core::run_blocking(context.svc.blocking, [&] {
    return library->read_file(context.params.at("userId"), context.params.at("name"), context.params.at("path"));
  });
  if (!text) co_return error_response(text.error());
  http_response response;
  // Shown as text, never run or rendered: a skill's files are the user's code.
  response.set_header("Content-Type", "text/plain; charset=utf-8");
  response.set_header("X-Content-Type-Options", "nosniff");
  response.set_header("Cache-Control", "no-store");
  response.body = std::move(*text);
  co_return response;
}

boost::asio::awaitable<http_response> handle_delete_skill(const request_context& context) {
  if (auto hidden = hidden_skill(context)) co_return std::move(*hidden);
  if (!context.svc.skills) co_return no_library();
  const auto& name = context.params.at("name");
  auto library = context.svc.skills;
  auto removed = co_await core::run_blocking(context.svc.blocking,
                                             [&] { return library->remove(context.params.at("userId"), name); });
  if (!removed) co_return error_response(removed.error());
  co_return json_response(200, {{"name", name}, {"deleted", true}});
}

}  // namespace harness::http
