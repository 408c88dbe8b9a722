#include "harness/store/errors.hpp"

namespace harness::store {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "store"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::open_failed:
        return "store_open_failed";
      case errc::migration_failed:
        return "store_migration_failed";
      case errc::too_new:
        return "store_too_new";
      case errc::busy:
        return "store_busy";
      case errc::disk_full:
        return "store_disk_full";
      case errc::read_only:
        return "store_read_only";
      case errc::corrupt:
        return "store_corrupt";
      case errc::io_error:
        return "store_io_error";
      case errc::error:
        return "store_error";
      case errc::task_exists:
        return "task_exists";
      case errc::task_not_found:
        return "task_not_found";
      case errc::event_exists:
        return "event_exists";
      case errc::conversation_user_mismatch:
        return "conversation_user_mismatch";
      case errc::user_limit:
        return "user_limit";
      case errc::conversation_running:
        return "conversation_running";
      case errc::task_interrupted:
        return "task_interrupted";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::open_failed:
      case errc::migration_failed:
      case errc::too_new:
        return 500;
      case errc::busy:
      case errc::disk_full:
      case errc::read_only:
      case errc::corrupt:
      case errc::io_error:
      case errc::error:
      case errc::task_exists:
      case errc::event_exists:
      case errc::conversation_user_mismatch:
        return 503;
      case errc::task_not_found:
        return 404;
      case errc::user_limit:
        return 429;
      case errc::conversation_running:
      case errc::task_interrupted:
        return 409;
    }
    return 0;
  }
};

}  // namespace

const harness::error_category& errc_category() noexcept {
  static const category instance;
  return instance;
}

}  // namespace harness::store
