#include "harness/pii/errors.hpp"

namespace harness::pii {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "pii"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_pattern:
        return "invalid_pii_pattern";
      case errc::unknown_detector:
        return "unknown_pii_detector";
      case errc::invalid_vault:
        return "invalid_vault";
      case errc::json_too_deep:
        return "json_too_deep";
      case errc::invalid_vault_key:
        return "invalid_vault_key";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_pattern:
      case errc::unknown_detector:
      case errc::invalid_vault:
      case errc::invalid_vault_key:
        return 500;
      case errc::json_too_deep:
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

}  // namespace harness::pii
