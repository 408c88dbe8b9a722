#include "harness/core/errors.hpp"

namespace harness::core {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "core"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_setting:
        return "invalid_setting";
      case errc::invalid_dotenv:
        return "invalid_dotenv";
      case errc::invalid_argument:
        return "invalid_argument";
      case errc::startup_failed:
        return "startup_failed";
      case errc::cancelled:
        return "cancelled";
      case errc::internal_error:
        return "internal_error";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_setting:
      case errc::invalid_dotenv:
      case errc::startup_failed:
      case errc::internal_error:
        return 500;
      case errc::invalid_argument:
        return 400;
      case errc::cancelled:
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

}  // namespace harness::core
