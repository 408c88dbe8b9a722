// Which HOST values count as loopback for AUTH=auto (open without keys only there).
#include <gtest/gtest.h>

#include "access_setup.hpp"

namespace harness::app {
namespace {

TEST(LoopbackHost, OnlyTheLoopbackAddressesAndLocalhost) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"}) {
    EXPECT_TRUE(is_loopback_host(host)) << host;
  }
  for (const char* host : {"0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "128.0.0.1", "example.com", "", "127.0.0.1x",
                           "::ffff:10.0.0.1", "localhost.example.com"}) {
    EXPECT_FALSE(is_loopback_host(host)) << host;
  }
}

}  // namespace
}  // namespace harness::app
