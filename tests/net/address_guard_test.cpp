// Which addresses a URL chosen by a remote party may reach.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <gtest/gtest.h>

#include "harness/net/address_guard.hpp"

namespace harness::net {
namespace {

bool public_literal(const char* text) {
  sockaddr_in v4{};
  if (inet_pton(AF_INET, text, &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    return is_public_address(reinterpret_cast<const sockaddr*>(&v4));
  }
  sockaddr_in6 v6{};
  EXPECT_EQ(inet_pton(AF_INET6, text, &v6.sin6_addr), 1) << text;
  v6.sin6_family = AF_INET6;
  return is_public_address(reinterpret_cast<const sockaddr*>(&v6));
}

TEST(AddressGuard, LoopbackPrivateLinkLocalAndMetadataAreNotPublic) {
  for (const char* address : {"127.0.0.1",
                              "127.255.0.9",
                              "10.1.2.3",
                              "172.16.0.1",
                              "172.31.255.255",
                              "192.168.1.1",
                              "169.254.169.254",
                              "100.64.0.1",
                              "0.0.0.0",
                              "224.0.0.1",
                              "255.255.255.255",
                              "192.0.2.1",
                              "198.18.0.1",
                              "::1",
                              "::",
                              "fe80::1",
                              "fc00::1",
                              "fd12:3456::1",
                              "ff02::1",
                              "::ffff:127.0.0.1",
                              "::ffff:10.0.0.1",
                              "::ffff:169.254.169.254",
                              "64:ff9b::a00:1",
                              "2002:a00:1::",
                              "2001:db8::1",
                              "fec0::1"}) {
    EXPECT_FALSE(public_literal(address)) << address;
  }
}

TEST(AddressGuard, PublicAddressesArePublic) {
  for (const char* address : {"8.8.8.8", "1.1.1.1", "172.32.0.1", "172.15.255.255", "192.169.0.1", "100.128.0.1",
                              "169.255.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "2002:808:808::"}) {
    EXPECT_TRUE(public_literal(address)) << address;
  }
}

TEST(AddressGuard, HostsThatNameAPrivatePlaceAreNotPublic) {
  for (const char* host : {"localhost", "api.localhost", "127.0.0.1", "[::1]", "10.0.0.5", "[fd00::1]"}) {
    EXPECT_FALSE(is_public_host(host)) << host;
  }
  // Names are for DNS to answer: the connection is checked when it is made.
  for (const char* host : {"example.com", "8.8.8.8", "[2606:4700::1111]", "localhost.example.com"}) {
    EXPECT_TRUE(is_public_host(host)) << host;
  }
}

}  // namespace
}  // namespace harness::net
