#include "harness/policy/errors.hpp"

namespace harness::policy {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "policy"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_policy:
        return "invalid_policy";
      case errc::tool_denied:
        return "tool_denied";
      case errc::call_limit:
        return "call_limit";
      case errc::approval_required:
        return "approval_required";
      case errc::approval_denied:
        return "approval_denied";
      case errc::approval_timeout:
        return "approval_timeout";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_policy:  // the operator's file: the server's own configuration
        return 500;
      case errc::tool_denied:
      case errc::approval_required:
      case errc::approval_denied:
      case errc::approval_timeout:
        return 403;
      case errc::call_limit:
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

}  // namespace harness::policy
