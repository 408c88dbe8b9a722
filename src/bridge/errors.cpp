#include "harness/bridge/errors.hpp"

namespace harness::bridge {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "bridge"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::channel_closed:
        return "channel_closed";
      case errc::frame_too_large:
        return "frame_too_large";
      case errc::protocol_error:
        return "protocol_error";
      case errc::bad_call:
        return "bad_call";
      case errc::stale_call:
        return "stale_call";
      case errc::block_deadline:
        return "block_deadline";
      case errc::call_socket_failed:
        return "call_socket_failed";
      case errc::call_socket_timeout:
        return "call_socket_timeout";
      case errc::sandbox_failed:
        return "sandbox_failed";
      case errc::sandbox_put_failed:
        return "sandbox_put_failed";
      case errc::sandbox_timeout:
        return "sandbox_timeout";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::channel_closed:
      case errc::frame_too_large:
      case errc::protocol_error:
      case errc::bad_call:
      case errc::stale_call:
      case errc::block_deadline:
      case errc::call_socket_failed:
      case errc::call_socket_timeout:
      case errc::sandbox_failed:
      case errc::sandbox_put_failed:
      case errc::sandbox_timeout:
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

}  // namespace harness::bridge
