#include "harness/auth/errors.hpp"

namespace harness::auth {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "auth"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::key_required:
        return "key_required";
      case errc::invalid_key:
        return "invalid_key";
      case errc::admin_required:
        return "admin_required";
      case errc::user_required:
        return "user_required";
      case errc::user_not_allowed:
        return "user_not_allowed";
      case errc::rate_limited:
        return "rate_limited";
      case errc::invalid_key_file:
        return "invalid_key_file";
      case errc::key_file_write_failed:
        return "key_file_write_failed";
      case errc::random_failed:
        return "random_failed";
      case errc::unknown_key:
        return "unknown_key";
      case errc::key_id_clash:
        return "key_id_clash";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::key_required:
      case errc::invalid_key:
        return 401;
      case errc::admin_required:
      case errc::user_not_allowed:
        return 403;
      case errc::user_required:
        return 400;
      case errc::rate_limited:
        return 429;
      case errc::unknown_key:
        return 404;
      case errc::invalid_key_file:
      case errc::key_file_write_failed:
      case errc::random_failed:
      case errc::key_id_clash:
        return 500;
    }
    return 0;
  }
};

}  // namespace

const harness::error_category& errc_category() noexcept {
  static const category instance;
  return instance;
}

}  // namespace harness::auth
