#include "harness/net/errors.hpp"

namespace harness::net {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "net"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::bad_url:
        return "bad_url";
      case errc::connection_failed:
        return "connection_failed";
      case errc::tls_failed:
        return "tls_failed";
      case errc::timeout:
        return "http_timeout";
      case errc::response_too_large:
        return "response_too_large";
      case errc::busy:
        return "http_client_busy";
      case errc::address_refused:
        return "address_refused";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::bad_url:
        return 500;
      case errc::connection_failed:
      case errc::tls_failed:
      case errc::response_too_large:
      case errc::busy:
      case errc::address_refused:
        return 502;
      case errc::timeout:
        return 504;
    }
    return 0;
  }
};

}  // namespace

const harness::error_category& errc_category() noexcept {
  static const category instance;
  return instance;
}

}  // namespace harness::net
