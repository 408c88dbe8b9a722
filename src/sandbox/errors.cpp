#include "harness/sandbox/errors.hpp"

namespace harness::sandbox {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "sandbox"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::bad_request:
        return "sandbox_bad_request";
      case errc::shutting_down:
        return "sandbox_shutting_down";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::bad_request:
        return 400;
      case errc::shutting_down:
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

}  // namespace harness::sandbox
