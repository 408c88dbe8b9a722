#include "harness/net/address_guard.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "harness/net/http_client.hpp"

namespace harness::net {
namespace {

// An IPv4 range as address and prefix length, host byte order.
struct v4_range {
  std::uint32_t base;
  int bits;
};

constexpr std::uint32_t v4(unsigned a, unsigned b, unsigned c, unsigned d) {
  return (a << 24) | (b << 16) | (c << 8) | d;
}

// Not the public internet (IANA special-purpose registry, the parts a remote
// server could use to reach something private).
constexpr std::array<v4_range, 15> not_public_v4{{
    {v4(0, 0, 0, 0), 8},        // "this network"
    {v4(10, 0, 0, 0), 8},       // private
    {v4(100, 64, 0, 0), 10},    // carrier-grade NAT
    {v4(127, 0, 0, 0), 8},      // loopback
    {v4(169, 254, 0, 0), 16},   // link-local, cloud metadata (169.254.169.254)
    {v4(172, 16, 0, 0), 12},    // private
    {v4(192, 0, 0, 0), 24},     // IETF protocol assignments
    {v4(192, 0, 2, 0), 24},     // documentation
    {v4(192, 88, 99, 0), 24},   // 6to4 relay
    {v4(192, 168, 0, 0), 16},   // private
    {v4(198, 18, 0, 0), 15},    // benchmarking
    {v4(198, 51, 100, 0), 24},  // documentation
    {v4(203, 0, 113, 0), 24},   // documentation
    {v4(224, 0, 0, 0), 4},      // multicast
    {v4(240, 0, 0, 0), 4},      // reserved, broadcast
}};

bool public_v4(std::uint32_t address) {
  for (const auto& range : not_public_v4) {
    const std::uint32_t mask = range.bits == 0 ? 0 : ~std::uint32_t(0) << (32 - range.bits);
    if ((address & mask) == range.base) return false;
  }
  return true;
}

bool public_v6(const in6_addr& a) {
  const unsigned char* b = a.s6_addr;
  static const unsigned char zero[16] = {};
  if (std::memcmp(b, zero, 16) == 0) return false;                // ::
  if (std::memcmp(b, zero, 15) == 0 && b[15] == 1) return false;  // ::1
  if (IN6_IS_ADDR_V4MAPPED(&a) || IN6_IS_ADDR_V4COMPAT(&a)) {     // ::ffff:a.b.c.d
    return public_v4(v4(b[12], b[13], b[14], b[15]));
  }
  if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b) {  // 64:ff9b::/96 (NAT64)
    return public_v4(v4(b[12], b[13], b[14], b[15]));
  }
  if ((b[0] & 0xfe) == 0xfc) return false;                                         // fc00::/7 unique local
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return false;                         // fe80::/10 link-local
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return false;                         // fec0::/10 site-local
  if (b[0] == 0xff) return false;                                                  // multicast
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) return false;  // 2001:db8::/32 documentation
  if (b[0] == 0x20 && b[1] == 0x02) return public_v4(v4(b[2], b[3], b[4], b[5]));  // 6to4 of an IPv4
  return true;
}

// Marks every request public_only before it goes to the wrapped client.
class public_only final : public http_client {
 public:
  explicit public_only(std::shared_ptr<http_client> inner) : inner_(std::move(inner)) {}
  boost::asio::awaitable<result<response>> fetch(request r) override {
    r.public_only = true;
    auto out = co_await inner_->fetch(std::move(r));
    co_return out;
  }
  boost::asio::awaitable<result<std::unique_ptr<response_stream>>> open(request r) override {
    r.public_only = true;
    auto out = co_await inner_->open(std::move(r));
    co_return out;
  }

 private:
  std::shared_ptr<http_client> inner_;
};

}  // namespace

bool is_public_address(const sockaddr* address) {
  if (!address) return false;
  if (address->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(address);
    return public_v4(ntohl(in->sin_addr.s_addr));
  }
  if (address->sa_family == AF_INET6) return public_v6(reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr);
  return false;  // unix sockets and anything else
}

bool is_public_host(const std::string& host) {
  if (host == "localhost" || host.ends_with(".localhost")) return false;
  std::string bare =
      host.size() > 2 && host.front() == '[' && host.back() == ']' ? host.substr(1, host.size() - 2) : host;
  sockaddr_in v4addr{};
  if (inet_pton(AF_INET, bare.c_str(), &v4addr.sin_addr) == 1) {
    v4addr.sin_family = AF_INET;
    return is_public_address(reinterpret_cast<const sockaddr*>(&v4addr));
  }
  sockaddr_in6 v6addr{};
  if (inet_pton(AF_INET6, bare.c_str(), &v6addr.sin6_addr) == 1) {
    v6addr.sin6_family = AF_INET6;
    return is_public_address(reinterpret_cast<const sockaddr*>(&v6addr));
  }
  return true;
}

std::string address_text(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (address && address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof text);
  } else if (address && address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text, sizeof text);
  }
  return text;
}

std::shared_ptr<http_client> public_only_client(std::shared_ptr<http_client> client) {
  return std::make_shared<public_only>(std::move(client));
}

}  // namespace harness::net
