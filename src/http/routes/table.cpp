#include "harness/http/api.hpp"

namespace harness::http {

router make_api_router() {
  return router({
      {.method = "GET", .pattern = "/health", .handle = handle_health, .access = route_access::open},
      {.method = "GET", .pattern = "/health/live", .handle = handle_health_live, .access = route_access::open},
      {.method = "GET", .pattern = "/health/ready", .handle = handle_health_ready, .access = route_access::open},
      {.method = "GET", .pattern = "/metrics", .handle = handle_metrics, .access = route_access::admin},
      {.method = "POST", .pattern = "/task", .handle = nullptr, .json_body = true, .handle_async = handle_post_task},
      {.method = "GET", .pattern = "/tasks", .handle = nullptr, .json_body = false, .handle_async = handle_list_tasks},
      {.method = "GET",
       .pattern = "/tasks/{id}",
       .handle = nullptr,
       .json_body = false,
       .handle_async = handle_get_task},
      {.method = "GET",
       .pattern = "/tasks/{id}/events",
       .handle = nullptr,
       .json_body = false,
       .handle_async = handle_task_events},
      {.method = "DELETE",
       .pattern = "/tasks/{id}",
       .handle = nullptr,
       .json_body = false,
       .handle_async = handle_cancel_task},
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
      {.method = "GET",
       .pattern = "/tasks/{id}/files",
       .handle = nullptr,
       .json_body = false,
       .handle_async = handle_list_task_files},
      {.method = "GET",
       .pattern = "/tasks/{id}/files/{path...}",
       .handle = nullptr,
       .json_body = false,
       .handle_async = handle_get_task_file},
  });
}

}  // namespace harness::http
