// The peers of the net tests: tests/net/test_server.js as a child process
// (HTTP, HTTPS, HTTP/2 or a forward proxy), and a throwaway certificate
// authority made with the openssl command for the TLS cases.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/child_process.hpp"

namespace harness::net::testing {

// A CA and a server certificate it signed for `DNS:localhost` only, so that
// https://localhost verifies and https://127.0.0.1 is the wrong host name.
struct test_ca {
  std::filesystem::path dir;
  std::string ca_pem, server_pem, server_key, other_ca_pem;

  test_ca() {
    dir = std::filesystem::temp_directory_path() / ("harness-net-ca-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    ca_pem = (dir / "ca.pem").string();
    server_pem = (dir / "server.pem").string();
    server_key = (dir / "server.key").string();
    other_ca_pem = (dir / "other-ca.pem").string();
    std::ofstream(dir / "server.ext") << "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n"
                                         "extendedKeyUsage=serverAuth\n";
    const std::string d = dir.string();
    const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    const std::string ca_ext =
        " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign";
    run("openssl req -x509" + ec + " -keyout " + d + "/ca.key -out " + ca_pem + " -days 2 -subj /CN=HarnessTestCA" +
        ca_ext);
    run("openssl req -x509" + ec + " -keyout " + d + "/other.key -out " + other_ca_pem +
        " -days 2 -subj /CN=SomeOtherCA" + ca_ext);
    run("openssl req" + ec + " -keyout " + server_key + " -out " + d + "/server.csr -subj /CN=localhost");
    run("openssl x509 -req -in " + d + "/server.csr -CA " + ca_pem + " -CAkey " + d + "/ca.key -CAcreateserial -out " +
        server_pem + " -days 2 -extfile " + d + "/server.ext");
  }
  ~test_ca() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  static void run(const std::string& command) {
    const int status = std::system((command + " >/dev/null 2>&1").c_str());
    if (status != 0) throw std::runtime_error("failed: " + command);
  }
};

// tests/net/test_server.js, listening on a loopback port.
struct test_server {
  std::unique_ptr<harness::testing::child_process> child;
  unsigned short port = 0;

  explicit test_server(std::vector<std::string> flags = {}) {
    std::vector<std::string> argv = {harness::testing::find_on_path("node"),
                                     harness::testing::source_path("tests/net/test_server.js")};
    argv.insert(argv.end(), flags.begin(), flags.end());
    // Empty NODE_EXTRA_CA_CERTS is off: loopback peers need no extra CAs, which only slow node's start.
    child = std::make_unique<harness::testing::child_process>(
        argv, std::map<std::string, std::string>{{"NODE_EXTRA_CA_CERTS", ""}});
    auto line = child->wait_for_output("listening ", std::chrono::seconds(20));
    if (!line) throw std::runtime_error("test_server.js did not start: " + child->output());
    port = static_cast<unsigned short>(std::stoi(line->substr(line->find("listening ") + 10)));
  }

  std::string url(const std::string& host, const std::string& path, bool tls = false) const {
    return std::string(tls ? "https://" : "http://") + host + ":" + std::to_string(port) + path;
  }
};

}  // namespace harness::net::testing
