#include "harness/http/api.hpp"

namespace harness::http {

router make_api_router() {
  return router({
      {"GET", "/health", handle_health},
      {"GET", "/metrics", handle_metrics},
      {"POST", "/task", handle_post_task, /*json_body=*/true},
      {"GET", "/tools", handle_list_tools},
      {"GET", "/tools/{name}", handle_tool_details},
      {.method = "POST", .pattern = "/execute", .handle = nullptr, .json_body = true, .handle_async = handle_execute},
      {.method = "DELETE", .pattern = "/sessions/{id}", .handle = nullptr, .json_body = false, .handle_async = handle_delete_session},
  });
}

}  // namespace harness::http
