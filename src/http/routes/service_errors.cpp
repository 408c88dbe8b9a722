#include <map>

#include "harness/http/api.hpp"

namespace harness::http {

http_response service_error_response(const error& e) {
  // Codes a service returns for expected failures, and what they mean in HTTP.
  static const std::map<std::string, unsigned> status_of = {
      {"session_not_found", 404}, {"session_forbidden", 403}, {"session_busy", 409},
      {"too_many_sessions", 429}, {"invalid_request", 400}, {"mcp_unknown_tool", 404},
      {"user_busy", 429}, {"agent_busy", 429}, {"conversation_not_found", 404},
      {"conversation_forbidden", 403}, {"conversation_busy", 409}, {"task_not_found", 404},
      {"task_forbidden", 403}, {"task_finished", 409},
      {"invalid_user_id", 400}, {"invalid_skill_name", 400}, {"skill_not_found", 404}, {"skill_read_only", 403},
      {"invalid_task_id", 400}, {"invalid_path", 400}, {"workspace_not_found", 404}, {"file_not_found", 404},
  };
  unsigned status = 503;  // sandbox and engine failures: the service cannot serve now
  if (auto it = status_of.find(e.code); it != status_of.end()) status = it->second;
  auto response = error_response(status, e.code, e.describe());
  if (status == 429 || status == 503) response.set_header("Retry-After", "5");
  return response;
}

}  // namespace harness::http
