#include "harness/http/api.hpp"

namespace harness::http {

router make_api_router() {
  return router({
      {"GET", "/health", handle_health},
      {"POST", "/task", handle_post_task, /*json_body=*/true},
  });
}

}  // namespace harness::http
