#include "harness/llm/errors.hpp"

namespace harness::llm {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "llm"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_json:
        return "invalid_json";
      case errc::bad_request:
        return "llm_bad_request";
      case errc::unauthorized:
        return "llm_unauthorized";
      case errc::forbidden:
        return "llm_forbidden";
      case errc::not_found:
        return "llm_not_found";
      case errc::request_too_large:
        return "llm_request_too_large";
      case errc::rate_limited:
        return "llm_rate_limited";
      case errc::server_error:
        return "llm_server_error";
      case errc::overloaded:
        return "llm_overloaded";
      case errc::busy:
        return "llm_busy";
      case errc::internal:
        return "llm_internal";
      case errc::error:
        return "llm_error";
      case errc::timeout:
        return "llm_timeout";
      case errc::deadline_exceeded:
        return "llm_deadline_exceeded";
      case errc::connection_failed:
        return "llm_connection_failed";
      case errc::transport:
        return "llm_transport";
      case errc::response_too_large:
        return "llm_response_too_large";
      case errc::bad_response:
        return "llm_bad_response";
      case errc::replay_exhausted:
        return "replay_exhausted";
      case errc::replay_invalid:
        return "replay_invalid";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_json:
      case errc::bad_request:
      case errc::unauthorized:
      case errc::forbidden:
      case errc::not_found:
      case errc::request_too_large:
      case errc::rate_limited:
      case errc::server_error:
      case errc::overloaded:
      case errc::busy:
      case errc::internal:
      case errc::error:
      case errc::timeout:
      case errc::deadline_exceeded:
      case errc::connection_failed:
      case errc::transport:
      case errc::response_too_large:
      case errc::bad_response:
      case errc::replay_exhausted:
      case errc::replay_invalid:
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

}  // namespace harness::llm
