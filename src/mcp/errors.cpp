#include "harness/mcp/errors.hpp"

namespace harness::mcp {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "mcp"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_config:
        return "invalid_mcp_config";
      case errc::spawn_failed:
        return "mcp_spawn_failed";
      case errc::startup_timeout:
        return "mcp_startup_timeout";
      case errc::unsupported_protocol:
        return "mcp_unsupported_protocol";
      case errc::not_connected:
        return "mcp_not_connected";
      case errc::connection_lost:
        return "mcp_connection_lost";
      case errc::server_unavailable:
        return "mcp_server_unavailable";
      case errc::timeout:
        return "mcp_timeout";
      case errc::session_expired:
        return "session_expired";
      case errc::http_status:
        return "mcp_http_status";
      case errc::bad_response:
        return "mcp_bad_response";
      case errc::message_too_large:
        return "mcp_message_too_large";
      case errc::endless_pagination:
        return "mcp_endless_pagination";
      case errc::jsonrpc_error:
        return "mcp_jsonrpc_error";
      case errc::unknown_tool:
        return "mcp_unknown_tool";
      case errc::invalid_arguments:
        return "invalid_arguments";
      case errc::tool_error:
        return "mcp_tool_error";
      case errc::needs_authorization:
        return "mcp_needs_authorization";
      case errc::authorization_failed:
        return "mcp_authorization_failed";
      case errc::oauth_callback_invalid:
        return "oauth_callback_invalid";
      case errc::grant_refused:
        return "mcp_grant_refused";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_config:
        return 500;
      case errc::spawn_failed:
      case errc::startup_timeout:
      case errc::unsupported_protocol:
      case errc::not_connected:
      case errc::connection_lost:
      case errc::server_unavailable:
      case errc::timeout:
      case errc::session_expired:
      case errc::http_status:
      case errc::bad_response:
      case errc::message_too_large:
      case errc::endless_pagination:
      case errc::jsonrpc_error:
      case errc::tool_error:
      case errc::needs_authorization:
        return 503;
      case errc::authorization_failed:
      case errc::grant_refused:
        return 502;
      case errc::oauth_callback_invalid:
        return 400;
      case errc::unknown_tool:
        return 404;
      case errc::invalid_arguments:
        return 400;
    }
    return 0;
  }
};

}  // namespace

const harness::error_category& errc_category() noexcept {
  static const category instance;
  return instance;
}

}  // namespace harness::mcp
