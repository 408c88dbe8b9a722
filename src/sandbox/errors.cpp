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
      case errc::oom:
        return "sandbox_oom";
      case errc::pids_limit:
        return "sandbox_pids_limit";
      case errc::timeout:
        return "sandbox_timeout";
      case errc::output_limit:
        return "sandbox_output_limit";
      case errc::code_error:
        return "sandbox_code_error";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::bad_request:
      case errc::shutting_down:
      case errc::oom:
      case errc::pids_limit:
      case errc::timeout:
      case errc::output_limit:
      case errc::code_error:
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
