#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "harness/http/validation.hpp"

namespace harness::http {

http_response handle_post_task(const request_context& context) {
  const auto& body = context.body;
  if (auto bad = check_known_fields(body, {"userId", "task", "conversationId", "mode"})) return *bad;
  if (auto bad = check_user_id(body)) return *bad;
  if (auto bad = check_text(body, "task", context.svc.limits.task_max_chars)) return *bad;
  if (body.contains("conversationId")) {
    if (auto bad = check_user_id(body, "conversationId")) return *bad;
  }
  if (auto bad = check_optional_choice(body, "mode", {"sync", "async", "stream"})) return *bad;
  auto response = error_response(503, "agent_unavailable",
                                 "the agent is not available in this build yet; POST /task will run tasks once it is");
  response.set_header("Retry-After", "60");
  return response;
}

}  // namespace harness::http
