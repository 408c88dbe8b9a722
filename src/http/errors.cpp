#include "harness/http/errors.hpp"

namespace harness::http {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "http"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::bind_failed:
        return "bind_failed";
      case errc::bad_request:
        return "bad_request";
      case errc::bad_target:
        return "bad_target";
      case errc::request_timeout:
        return "request_timeout";
      case errc::headers_too_large:
        return "headers_too_large";
      case errc::body_too_large:
        return "body_too_large";
      case errc::not_implemented:
        return "not_implemented";
      case errc::unsupported_media_type:
        return "unsupported_media_type";
      case errc::malformed_json:
        return "malformed_json";
      case errc::invalid_body:
        return "invalid_body";
      case errc::invalid_request:
        return "invalid_request";
      case errc::not_found:
        return "not_found";
      case errc::method_not_allowed:
        return "method_not_allowed";
      case errc::agent_unavailable:
        return "agent_unavailable";
      case errc::sandbox_unavailable:
        return "sandbox_unavailable";
      case errc::mcp_unavailable:
        return "mcp_unavailable";
      case errc::skills_unavailable:
        return "skills_unavailable";
      case errc::workspace_unavailable:
        return "workspace_unavailable";
      case errc::metrics_disabled:
        return "metrics_disabled";
      case errc::host_not_allowed:
        return "host_not_allowed";
      case errc::origin_not_allowed:
        return "origin_not_allowed";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::bind_failed:
        return 500;
      case errc::bad_request:
      case errc::bad_target:
      case errc::malformed_json:
      case errc::invalid_body:
      case errc::invalid_request:
        return 400;
      case errc::request_timeout:
        return 408;
      case errc::headers_too_large:
        return 431;
      case errc::body_too_large:
        return 413;
      case errc::not_implemented:
        return 501;
      case errc::unsupported_media_type:
        return 415;
      case errc::not_found:
        return 404;
      case errc::method_not_allowed:
        return 405;
      case errc::host_not_allowed:
        return 421;
      case errc::origin_not_allowed:
        return 403;
      case errc::agent_unavailable:
      case errc::sandbox_unavailable:
      case errc::mcp_unavailable:
      case errc::skills_unavailable:
      case errc::workspace_unavailable:
      case errc::metrics_disabled:
        return 503;
    }
    return 0;
  }
};

}  // namespace

const harness::error_category& errc_category() noexcept {
  static const category instance;
  return instance;
}

}  // namespace harness::http
