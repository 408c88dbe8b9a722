#include "harness/execution/errors.hpp"

#include "harness/execution/session_directory.hpp"

namespace harness::execution {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "execution"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::session_not_found:
        return "session_not_found";
      case errc::session_busy:
        return "session_busy";
      case errc::too_many_sessions:
        return "too_many_sessions";
      case errc::session_elsewhere:
        return "session_elsewhere";
      case errc::too_many_running:
        return "too_many_running";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::session_not_found:
        return 404;
      case errc::session_busy:
        return 409;
      case errc::session_elsewhere:
        return 421;  // Misdirected Request: the replica holding it must answer
      case errc::too_many_sessions:
      case errc::too_many_running:
        return 429;
    }
    return 0;
  }
};

}  // namespace

const harness::error_category& errc_category() noexcept {
  static const category instance;
  return instance;
}

error session_elsewhere(const std::string& session_id, const std::string& replica) {
  return make_error(errc::session_elsewhere, "session '" + session_id + "' lives on replica '" + replica + "'",
                    "send its requests to that replica: route by sessionId or make the load balancer sticky "
                    "(docs/DEPLOYMENT.md#several-replicas)");
}

}  // namespace harness::execution
