// tests/mcp/oauth_mcp_server.js as a child process: a remote MCP server
// behind OAuth 2.1 and its authorization server in one, over HTTPS with a
// test CA's certificate, or plain HTTP; at <scheme>://localhost:<port>.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/child_process.hpp"

namespace harness::testing {

struct oauth_test_server {
  std::unique_ptr<child_process> child;
  unsigned short port = 0;
  bool tls = false;

  // `cert` and `key` (PEM files): HTTPS with them; empty: plain HTTP.
  explicit oauth_test_server(const std::string& cert = {}, const std::string& key = {},
                             const std::map<std::string, std::string>& env = {})
      : tls(!cert.empty()) {
    using namespace std::chrono_literals;
    std::vector<std::string> argv{find_on_path("node"), source_path("tests/mcp/oauth_mcp_server.js")};
    if (tls) argv.insert(argv.end(), {"--tls", cert, key});
    auto all = env;
    all["NODE_EXTRA_CA_CERTS"] = "";  // empty: off (it only slows node's start-up here)
    child = std::make_unique<child_process>(argv, all);
    auto line = child->wait_for_output("listening ", 20s);
    if (!line) throw std::runtime_error("oauth_mcp_server.js did not start: " + child->output());
    port = static_cast<unsigned short>(std::stoi(line->substr(line->find("listening ") + 10)));
  }
  std::string url(const std::string& path) const {
    return std::string(tls ? "https" : "http") + "://localhost:" + std::to_string(port) + path;
  }
};

}  // namespace harness::testing
