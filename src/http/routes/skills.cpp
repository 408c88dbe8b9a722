// GET /skills?userId=, GET /skills/{userId}/{name}, DELETE /skills/{userId}/{name}.
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

}  // namespace

http_response handle_list_skills(const request_context& context) {
  auto user = context.request.query.find("userId");
  if (user == context.request.query.end()) {
    return error_response(http::errc::invalid_request, "the 'userId' query parameter is required: /skills?userId=...");
  }
  if (!context.svc.skills) return no_library();
  auto skills = context.svc.skills->list(user->second);
  if (!skills) return error_response(skills.error());
  return json_response(200, {{"userId", user->second}, {"skills", std::move(*skills)}});
}

http_response handle_get_skill(const request_context& context) {
  if (!context.svc.skills) return no_library();
  auto skill = context.svc.skills->get(context.params.at("userId"), context.params.at("name"));
  if (!skill) return error_response(skill.error());
  return json_response(200, *skill);
}

http_response handle_delete_skill(const request_context& context) {
  if (!context.svc.skills) return no_library();
  const auto& name = context.params.at("name");
  auto removed = context.svc.skills->remove(context.params.at("userId"), name);
  if (!removed) return error_response(removed.error());
  return json_response(200, {{"name", name}, {"deleted", true}});
}

}  // namespace harness::http
