#include "harness/http/api.hpp"

namespace harness::http {

router make_api_router() {
  return router({
      {"GET", "/health", handle_health},
      {"GET", "/health/live", handle_health_live},
      {"GET", "/health/ready", handle_health_ready},
      {"GET", "/metrics", handle_metrics},
      {.method = "POST", .pattern = "/task", .handle = nullptr, .json_body = true, .handle_async = handle_post_task},
      {"GET", "/tasks", handle_list_tasks},
      {"GET", "/tasks/{id}", handle_get_task},
      {"GET", "/tasks/{id}/events", handle_task_events},
      {"DELETE", "/tasks/{id}", handle_cancel_task},
      {"GET", "/tools", handle_list_tools},
      {"GET", "/tools/{name}", handle_tool_details},
      {.method = "POST", .pattern = "/execute", .handle = nullptr, .json_body = true, .handle_async = handle_execute},
      {.method = "DELETE",
       .pattern = "/sessions/{id}",
       .handle = nullptr,
       .json_body = false,
       .handle_async = handle_delete_session},
      {"GET", "/skills", handle_list_skills},
      {"GET", "/skills/{userId}/{name}", handle_get_skill},
      {"DELETE", "/skills/{userId}/{name}", handle_delete_skill},
      {"GET", "/tasks/{id}/files", handle_list_task_files},
      {"GET", "/tasks/{id}/files/{path...}", handle_get_task_file},
  });
}

}  // namespace harness::http
