#include "harness/docker/errors.hpp"

namespace harness::docker {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "docker"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::unreachable:
        return "docker_unreachable";
      case errc::timeout:
        return "docker_timeout";
      case errc::protocol_error:
        return "docker_protocol_error";
      case errc::api_version:
        return "docker_api_version";
      case errc::bad_request:
        return "docker_bad_request";
      case errc::not_found:
        return "docker_not_found";
      case errc::image_not_found:
        return "docker_image_not_found";
      case errc::conflict:
        return "docker_conflict";
      case errc::engine_error:
        return "docker_engine_error";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::unreachable:
      case errc::timeout:
      case errc::protocol_error:
      case errc::api_version:
      case errc::bad_request:
      case errc::not_found:
      case errc::image_not_found:
      case errc::conflict:
      case errc::engine_error:
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

}  // namespace harness::docker
