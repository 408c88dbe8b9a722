#include "harness/execution/errors.hpp"

namespace harness::execution {

const harness::error_category& errc_category() noexcept {
  static constexpr harness::errc_row rows[] = HARNESS_ERRC_ROWS(HARNESS_EXECUTION_ERRORS);
  static const harness::errc_table_category instance("execution", rows);
  return instance;
}

error session_elsewhere(const std::string& session_id, const std::string& replica) {
  return make_error(errc::session_elsewhere, "session '" + session_id + "' lives on replica '" + replica + "'",
                    "send its requests to that replica: route by sessionId or make the load balancer sticky "
                    "(docs/DEPLOYMENT.md#several-replicas)");
}

}  // namespace harness::execution
